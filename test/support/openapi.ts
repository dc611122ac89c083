/**
 * Holds responses to the OpenAPI document their server serves. apiFetch (./http.ts) runs every response of a
 * Surfcast server through `ResponseValidator.check`, so every test that talks to a server also checks the
 * document against what the server really does:
 *  - the request must map to a documented operation (method + path template, literal paths first), and the
 *    status must be declared for it; a request the document does not describe (unknown path, a method other than GET and HEAD)
 *    must be answered with an error status and the Error schema;
 *  - the body must be valid against the declared schema (Ajv, JSON Schema 2020-12, formats checked), and
 *    objects may not carry undeclared fields: the validator's copy of the document closes every object
 *    schema that lists properties (the served document stays open, so clients tolerate additions);
 *  - declared headers must be present when `required` and valid when present (numbers parsed first);
 *  - a response declared without content must have an empty body.
 */
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";

type Json = Record<string, any>;

/** The URI the document is registered under in Ajv; its local `$ref`s resolve against it. */
const DOCUMENT_URI = "https://surfcast.invalid/openapi.json";

const escapePointer = (segment: string) => encodeURIComponent(segment.replaceAll("~", "~0").replaceAll("/", "~1"));

/** Copy of `node` in which every object schema listing properties rejects properties it does not list. */
function closeObjects(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closeObjects);
  if (!node || typeof node !== "object") return node;
  const copy: Json = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, closeObjects(v)]));
  if (copy.type === "object" && copy.properties && typeof copy.properties === "object" && !("additionalProperties" in copy)) copy.additionalProperties = false;
  return copy;
}

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  literalSegments: number;
  id: string;
}

export class ResponseValidator {
  private readonly ajv = new Ajv2020({ allErrors: true, strict: false });
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly operations: Operation[] = [];

  constructor(readonly document: Json) {
    addFormats(this.ajv);
    this.ajv.addSchema(closeObjects(document) as Json, DOCUMENT_URI);
    for (const [template, item] of Object.entries<Json>(document.paths ?? {})) {
      const segments = template.split("/");
      const pattern = new RegExp(`^${segments.map((s) => (/^\{.+\}$/.test(s) ? "[^/]+" : s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))).join("/")}$`);
      const literalSegments = segments.filter((s) => !s.startsWith("{")).length;
      for (const method of Object.keys(item)) this.operations.push({ method: method.toUpperCase(), template, pattern, literalSegments, id: item[method].operationId });
    }
    // The most specific template wins, as in the router: /v1/spots/nearby before /v1/spots/{id}.
    this.operations.sort((a, b) => b.literalSegments - a.literalSegments);
  }

  /** The node at a JSON pointer (segments unescaped), following local `$ref`s; returns it with its pointer. */
  private resolve(segments: string[]): { node: Json; segments: string[] } {
    let node: any = this.document;
    for (const s of segments) node = node?.[s];
    if (node && typeof node.$ref === "string" && node.$ref.startsWith("#/")) {
      return this.resolve(node.$ref.slice(2).split("/").map((s: string) => s.replaceAll("~1", "/").replaceAll("~0", "~")));
    }
    return { node, segments };
  }

  private validator(segments: string[]): ValidateFunction {
    const ref = `${DOCUMENT_URI}#/${segments.map(escapePointer).join("/")}`;
    let validate = this.compiled.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref });
      this.compiled.set(ref, validate);
    }
    return validate;
  }

  private schemaProblems(segments: string[], value: unknown, what: string): string[] {
    const validate = this.validator(segments);
    if (validate(value)) return [];
    return (validate.errors ?? []).map((e) => `${what}${e.instancePath} ${e.message}${e.params && Object.keys(e.params).length ? " " + JSON.stringify(e.params) : ""}`);
  }

  operationFor(method: string, pathname: string): Operation | undefined {
    const m = method === "HEAD" ? "GET" : method;
    return this.operations.find((op) => op.method === m && op.pattern.test(pathname));
  }

  /** Everything wrong with one response; empty when it matches the document. */
  check(method: string, pathname: string, status: number, headers: Headers, body: string): string[] {
    // The HTTP server's own refusal of an oversized head: described once in the document, not per operation.
    if (status === 431) {
      const described = String(this.resolve(["info", "description"]).node ?? "").includes("431 Request Header Fields Too Large");
      return described && body === "" ? [] : [`${method} ${pathname} answered 431 ${body === "" ? "but the document does not describe it" : "with a body"}`];
    }
    const op = this.operationFor(method, pathname);
    const hasBody = method !== "HEAD";
    if (!op) {
      // Not an operation of the document: it can only be an error, in the Error shape.
      const problems = status < 400 ? [`${method} ${pathname} is not in the document, yet answered ${status}`] : [];
      if (hasBody) problems.push(...this.jsonProblems(["components", "schemas", "Error"], headers, body));
      return problems;
    }

    const opSegments = ["paths", op.template, op.method.toLowerCase()];
    const declared = Object.keys(this.resolve([...opSegments, "responses"]).node ?? {});
    const response = this.resolve([...opSegments, "responses", String(status)]);
    if (!response.node) return [`status ${status} is not declared for ${op.id} (declared: ${declared.join(", ")})`];

    const problems: string[] = [];
    for (const name of Object.keys(response.node.headers ?? {})) {
      const header = this.resolve([...response.segments, "headers", name]);
      const value = headers.get(name);
      if (value === null) {
        if (header.node.required) problems.push(`required header ${name} is missing`);
        continue;
      }
      const type = header.node.schema?.type;
      const parsed = (type === "integer" || type === "number") && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
      problems.push(...this.schemaProblems([...header.segments, "schema"], parsed, `header ${name}: `));
    }

    const content = response.node.content?.["application/json"];
    if (!hasBody) return problems;
    if (content) problems.push(...this.jsonProblems([...response.segments, "content", "application/json", "schema"], headers, body));
    else if (body.length > 0) problems.push(`status ${status} of ${op.id} is declared without a body, yet has ${body.length} bytes`);
    return problems;
  }

  /** Responses with a JSON body but no example, and examples their own schema (objects closed) rejects. */
  exampleProblems(): string[] {
    const problems: string[] = [];
    for (const [template, item] of Object.entries<Json>(this.document.paths ?? {})) {
      for (const method of Object.keys(item)) {
        for (const status of Object.keys(item[method].responses ?? {})) {
          const response = this.resolve(["paths", template, method, "responses", status]);
          if (!response.node.content) continue;
          const media = response.node.content["application/json"];
          const what = `${item[method].operationId} ${status} example`;
          if (media?.example === undefined) problems.push(`${what} is missing`);
          else problems.push(...this.schemaProblems([...response.segments, "content", "application/json", "schema"], media.example, `${what}: `));
        }
      }
    }
    return problems;
  }

  private jsonProblems(schemaSegments: string[], headers: Headers, body: string): string[] {
    const type = headers.get("content-type") ?? "";
    if (!type.startsWith("application/json")) return [`content-type is '${type}', not application/json`];
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return [`body is not JSON: ${body.slice(0, 200)}`];
    }
    return this.schemaProblems(schemaSegments, value, "body");
  }
}

const validators = new Map<string, Promise<ResponseValidator>>();

/** The validator for the server at `origin`, built from its /openapi.json once per origin. */
export function responseValidatorFor(origin: string): Promise<ResponseValidator> {
  let validator = validators.get(origin);
  if (!validator) {
    validator = (async () => {
      const res = await fetch(`${origin}/openapi.json`);
      const document = res.ok ? ((await res.json()) as Json) : undefined;
      if (!document?.openapi) throw new Error(`apiFetch: ${origin}/openapi.json answered ${res.status}; apiFetch only talks to Surfcast servers (rebuild dist/surfcast?)`);
      return new ResponseValidator(document);
    })();
    validators.set(origin, validator);
    validator.catch(() => validators.delete(origin));
  }
  return validator;
}
