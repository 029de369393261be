/**
 * The message loop of a baseline process forked by lib/raw-writer-client.ts: each message
 * `{ id, request }` is answered `{ id, …answer }`, or `{ id, error }` when handling throws.
 */
export function answerRequests<Request, Answer extends { error?: string }>(
  handle: (request: Request) => Answer | Promise<Answer>,
): void {
  process.on('message', async (message: { id: number; request: Request }) => {
    let answer: Answer | { error: string };
    try {
      answer = await handle(message.request);
    } catch (error) {
      answer = { error: error instanceof Error ? error.message : String(error) };
    }
    process.send!({ id: message.id, ...answer });
  });
}
