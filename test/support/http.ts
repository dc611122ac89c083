/**
 * The one fetch every test uses to call a Surfcast server (in-process or compiled). It is the hook where
 * responses are checked against the served OpenAPI document (see the OpenAPI issue, #8).
 */
export async function apiFetch(url: string, init: RequestInit = {}): Promise<Response> {
  return fetch(url, init);
}
