/** Scalar's browser bundle, imported `with { type: "text" }` (src/http/docs.ts): its text, embedded in the binary. */
declare module "*/@scalar/api-reference/dist/browser/standalone.js" {
  const text: string;
  export default text;
}
