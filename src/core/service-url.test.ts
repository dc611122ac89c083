import { describe, expect, test } from "bun:test";
import { UserError } from "./errors";
import { DATABASE_URL_PROTOCOLS, maskPassword, serviceUrl } from "./service-url";

describe("maskPassword", () => {
  test.each([
    ["postgres://u:secret@h/db", "postgres://u:***@h/db"],
    ["postgres://u:se@cr:et@h/db", "postgres://u:***@h/db"],
    ["postgres:u:secret@h/db", "postgres:u:***@h/db"],
    ["postgres://u@h/db?password=secret&sslmode=require", "postgres://u@h/db?password=***&sslmode=require"],
    ["postgres://u@h/db?sslmode=require&sslpassword=secret", "postgres://u@h/db?sslmode=require&sslpassword=***"],
    ["redis://:secret@cache:6379", "redis://:***@cache:6379"],
    ["redis://cache:6379", "redis://cache:6379"],
  ])("%s → %s", (url, masked) => {
    expect(maskPassword(url)).toBe(masked);
  });
});

describe("serviceUrl", () => {
  const check = (url: string) => serviceUrl(url, "SURFCAST_DATABASE_URL", DATABASE_URL_PROTOCOLS);

  test("a valid URL is kept; percent-escapes are fine", () => {
    expect(check(" postgres://u:S3cr%40t@h/db ")).toBe("postgres://u:S3cr%40t@h/db");
    expect(check("")).toBeUndefined();
  });

  test.each(["postgres://u:S3cr3t%zz@h/db", "postgres://u%zz:S3cr3t@h/db", "postgres://u:S3cr3t@h/d%b"])("%s: one line naming the %, no password", (url) => {
    expect(() => check(url)).toThrow(UserError);
    expect(() => check(url)).toThrow('SURFCAST_DATABASE_URL has a "%" that does not start a percent-escape');
    let message = "";
    try {
      check(url);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).not.toContain("S3cr3t");
  });

  test("a URL of another scheme is refused without its password, // or not", () => {
    expect(() => check("ftp:u:secret@h/db")).toThrow('SURFCAST_DATABASE_URL must be a postgres:// or postgresql:// URL, got "ftp:u:***@h/db"');
  });
});
