/** JSON kept gzipped (files the build derives and embeds: a read touches a quarter of the pages). */
import { readFileSync } from "node:fs";

export const readGzipJson = <T>(file: string): T => JSON.parse(new TextDecoder().decode(Bun.gunzipSync(readFileSync(file)))) as T;

export const gzipJson = (value: unknown): Uint8Array => Bun.gzipSync(new TextEncoder().encode(JSON.stringify(value)), { level: 9 });
