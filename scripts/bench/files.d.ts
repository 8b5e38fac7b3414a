// Types of the bench's file makers, for the tests that reuse them.
/** A valid 1x1 PNG (about 90 bytes) whose tEXt chunk makes its bytes unique. */
export function tinyPng(label: string): Buffer;
/** `count` tiny PNGs named <prefix>-00001.png... in `dir`, spread over subfolders of `perFolder` files. */
export function writeTinyPngs(dir: string, count: number, options?: { prefix?: string; perFolder?: number }): string[];
