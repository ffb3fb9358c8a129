// Issue-cost terms of model_tp.c's flows: placeholder until scripts/calibrate-tp-issue.ts has run.
export const TP_ISSUE_TERMS: Record<string, Record<string, [number, number, number]>> = {};
