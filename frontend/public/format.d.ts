// Types of format.js, for the Node tests that import it.
export declare function formatClock(iso: string): string;
export declare function formatDuration(seconds: number): string;
export declare function formatAge(ms: number): string;
export declare function formatCount(n: number, one: string, many?: string): string;
export declare function formatBytes(n: number): string;
export declare function decimalsFor(numbers: number[]): number;
export declare function formatNumber(n: number, decimals: number): string;
export declare function formatValue(reading: { value: string; cutFrom?: number }): string;
