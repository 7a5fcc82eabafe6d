/** The bench's progress line on stderr, with the time of day. */
export const log = (message: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}`);
