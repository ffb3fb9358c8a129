// placeholder
export const MODEL_ISSUE_SHIFT_SAVINGS: Record<string, Record<string, [number, number, number]>> = {};
export const MODEL_ISSUE_MUL_SAVINGS: Record<string, Record<string, [number, number, number]>> = {};
