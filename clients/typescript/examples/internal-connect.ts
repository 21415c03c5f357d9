import { createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { StormwaterService } from "@permits/proto/stormwater/v1/stormwater";

// A token listed in INTERNAL_TOKENS with the `engine` scope (docs/configuration.md).
const bearer: Interceptor = (next) => (req) => {
  req.header.set("authorization", `Bearer ${process.env.ENGINE_TOKEN}`);
  return next(req);
};
// Embedded (`npm start`): the engines on the gateway's own port, over Connect (or gRPC-Web).
const embedded = createClient(StormwaterService, createConnectTransport({ baseUrl: "http://127.0.0.1:8080", httpVersion: "1.1", interceptors: [bearer] }));
// Distributed: the stormwater service's own port, over gRPC (HTTP/2).
const distributed = createClient(StormwaterService, createGrpcTransport({ baseUrl: "http://127.0.0.1:7001", interceptors: [bearer] }));

const { determination } = await embedded.determine({ site: { state: "TX", activity: "construction", disturbedAcres: 5 } });
console.log(determination?.coverage, (await distributed.listJurisdictions({})).jurisdictions.length);
