// Small fetch wrappers for the tests and the bench.
import { get, type IncomingHttpHeaders } from 'node:http';

export interface JsonResponse {
  status: number;
  headers: Headers;
  json: Record<string, unknown>;
}

/** POSTs a JSON body (a string is sent as it is); the answer, whatever its status. */
export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<JsonResponse> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return jsonOf(res);
}

export function postScenario(
  baseUrl: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<JsonResponse> {
  return postJson(`${baseUrl}/api/scenarios`, body, headers);
}

/** The body of a 201 or 200 answer; any other status throws with what the server said. */
export function accepted(res: JsonResponse, what: string): Record<string, unknown> {
  if (res.status !== 201 && res.status !== 200) {
    throw new Error(`${what}: ${res.status} ${JSON.stringify(res.json).slice(0, 300)}`);
  }
  return res.json;
}

export async function getJson(url: string, headers: Record<string, string> = {}): Promise<JsonResponse> {
  return jsonOf(await fetch(url, { headers }));
}

async function jsonOf(res: Response): Promise<JsonResponse> {
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

export const DEFAULT_SCENARIO = { name: 'Amarillo hybrid', site: { latitude: 35.2, longitude: -101.8 } };

/** A GET whose body is kept as sent (fetch would inflate a gzip body itself). */
export function rawGet(
  url: string,
  gzip: boolean,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { 'accept-encoding': gzip ? 'gzip' : 'identity' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    }).on('error', reject);
  });
}
