// Limits both ends of the HTTP/2 path share: the gateway's client (client/) and a service's server
// (server/) must agree on them, so each is written once, here.

// HTTP/2 flow-control windows of both ends. With the protocol's default of 64 KB, an answer of a
// few hundred KB (a batch of NWP determinations) waits for a window update from the receiver's
// event loop every 64 KB, and a busy gateway's loop turns take milliseconds.
export const STREAM_WINDOW_BYTES = 8 * 1024 * 1024;
export const CONNECTION_WINDOW_BYTES = 32 * 1024 * 1024;

/** maxSessionMemory (MB) of an HTTP/2 session, on the service's server and on the gateway's client. */
export const SESSION_MEMORY_MB = 256;

/** Most calls one coalesced exchange may carry: the client cuts exchanges here, the server refuses more. */
export const MAX_COALESCED_CALLS = 1000;

/**
 * Largest request message a service's server reads (a batch of 100 projects is a few tens of KB),
 * unless its manifest's maxRequestBytes says more (ServiceLimits.maxRequestBytes).
 */
export const MAX_REQUEST_BYTES = 8 * 1024 * 1024;

/** Request bytes the client puts in one coalesced exchange, well inside MAX_REQUEST_BYTES. */
export const MAX_COALESCED_BYTES = 4 * 1024 * 1024;
