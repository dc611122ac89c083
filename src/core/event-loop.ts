/** Lets the event loop run (requests waiting are answered) before a long job's next step: a refresh, the tide window pass. */
export const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
