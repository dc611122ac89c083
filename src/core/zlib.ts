/**
 * node:zlib, loaded at its first use, with require: importing it (and the node:stream it loads) takes ~10 ms of every
 * start, before a restart's first /healthz, and only compressed answers and stored documents need it.
 */
type Zlib = typeof import("node:zlib");

let loaded: Zlib | undefined;

export const zlib = (): Zlib => (loaded ??= require("node:zlib") as Zlib);
