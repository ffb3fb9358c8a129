// placeholder
export const ISSUE_SHIFT_SAVINGS: Record<string, Record<string, [number, number, number]>> = {};
