import { describe, expect, test } from "bun:test";
import { explainAcmeFailure } from "./acme-errors";

const context = { domains: ["surf.example.com", "www.surf.example.com"], directoryUrl: "https://acme.test/dir", httpPort: 80 };
const coded = (message: string, code: string) => Object.assign(new Error(message), { code });

describe("an ACME failure told as cause and check", () => {
  test.each([
    ["untrusted ACME server", coded("self signed certificate in certificate chain", "SELF_SIGNED_CERT_IN_CHAIN"), /does not trust/, /SURFCAST_ACME_CA_FILE/],
    ["ACME server down", coded("connect ECONNREFUSED 127.0.0.1:14000", "ECONNREFUSED"), /cannot be reached/, /SURFCAST_ACME_DIRECTORY/],
    ["no directory", new Error("Attempting to read ACME directory returned error 404: https://acme.test/dir"), /cannot be reached/, /SURFCAST_ACME_DIRECTORY/],
    ["rate limit", new Error("Error creating new order :: too many certificates already issued for exact set of domains"), /rate limit/, /do not restart/],
    ["CAA", new Error("CAA record for surf.example.com prevents issuance"), /CAA record/, /CAA records/],
    ["DNS", new Error("DNS problem: NXDOMAIN looking up A for surf.example.com"), /DNS for surf.example.com, www.surf.example.com/, /A\/AAAA records/],
    ["challenge unreachable", new Error("127.0.0.1: Fetching http://surf.example.com/.well-known/acme-challenge/x: Connection refused"), /could not fetch the challenge at http:\/\/surf.example.com\//, /port 80 \(--http-port\)/],
    ["wrong answer", new Error("The key authorization file from the server did not match this challenge"), /the ACME order failed/, /detail/],
    ["refused name", new Error("Error creating new order :: Cannot issue for \"localhost\": Domain name does not end with a valid public suffix (policy)"), /refuses to issue/, /--https/],
  ])("%s", (_, err, cause, check) => {
    const failure = explainAcmeFailure(err, context);
    expect(failure.cause).toMatch(cause);
    expect(failure.check).toMatch(check);
  });

  test("names the HTTP port in the challenge's address when it is not 80", () => {
    expect(explainAcmeFailure(new Error("Connection refused"), { ...context, httpPort: 8080 }).cause).toContain("http://surf.example.com:8080/.well-known/acme-challenge/");
  });
});
