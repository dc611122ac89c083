/** A webhook receiver on 127.0.0.1 whose answers the test scripts, keeping every request it got. */

export interface Received {
  path: string;
  host: string | null;
  headers: Record<string, string>;
  body: string;
}

/** How the receiver answers one request: a status, a Response made afresh each time, or "hang" (never answers). */
export type Answer = number | (() => Response) | "hang";

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Answers in turn; the last one repeats. */
  answers: Answer[];
  stop(): void;
}

export function startReceiver(answers: Answer[] = [204]): Receiver {
  const received: Received[] = [];
  const receiver: Receiver = {
    url: "",
    port: 0,
    received,
    answers,
    stop: () => server.stop(true),
  };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      received.push({
        path: new URL(req.url).pathname,
        host: req.headers.get("host"),
        headers: Object.fromEntries(req.headers),
        body: await req.text(),
      });
      const answer = receiver.answers.length > 1 ? receiver.answers.shift()! : receiver.answers[0]!;
      if (answer === "hang") return new Promise<Response>(() => {});
      return typeof answer === "number" ? new Response(null, { status: answer }) : answer();
    },
  });
  receiver.port = server.port!;
  receiver.url = `http://127.0.0.1:${server.port}`;
  return receiver;
}
