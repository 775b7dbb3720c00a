/** Polling for tests that wait on another process or the queue, with a bounded timeout. */

/** Resolves with the first non-undefined result of `probe`, polled every `intervalMs`; rejects after `timeoutMs`. */
export const waitFor = async <T>(
  description: string,
  probe: () => Promise<T | undefined> | T | undefined,
  { timeoutMs = 15_000, intervalMs = 25 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await probe();
    if (result !== undefined) return result;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${description}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
};
