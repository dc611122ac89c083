/** Scalar's browser bundle, imported `with { type: "file" }` (src/http/docs.ts): the path of its copy embedded in the binary. */
declare module "*/@scalar/api-reference/dist/browser/standalone.js" {
  const path: string;
  export default path;
}
