// How large a request each host function reads, and how many requests one call may make. A sandbox
// thread checks both before it copies or sends a request to the main thread, so a module can neither
// make the main thread parse an unbounded text nor keep it busy past these counts.
import type { HostFunctionName } from '../../module/index.ts';

const KiB = 1024;
const MiB = 1024 * KiB;

/** The largest request, in UTF-8 bytes of its JSON, each host function reads. */
export const HOST_REQUEST_BYTES: Record<HostFunctionName, number> = {
  // A request body of up to 8 MiB written as base64 in the JSON, with its URL and headers.
  http_request: 12 * MiB,
  // A message to sign or check as large as a vendor answer (8 MiB), as base64.
  hmac: 12 * MiB,
  hmac_verify: 12 * MiB,
  document_read: 4 * KiB,
  // A line is 2000 characters; every one of them written as a \uXXXX escape is 12000 bytes.
  log: 16 * KiB,
  // A value is 8 KiB at most, escaped as above.
  cache: 64 * KiB,
  // A model request is 1 MiB once built; its messages as the module wrote them, escaped.
  ai: 2 * MiB,
};

/** Host function requests one call may make, all functions together (each also has its own counts). */
export const MAX_HOST_REQUESTS = 1000;
