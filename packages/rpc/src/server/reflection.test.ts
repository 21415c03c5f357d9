// gRPC server reflection as a hosted service answers it, over gRPC on a real port: what is
// listed, that files come as compiled with their imports, errors in the stream, and the
// credential it needs.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { create, fromBinary, toBinary, type DescFile } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema, file_google_protobuf_descriptor, file_google_protobuf_struct } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import * as v1 from "@permits/proto/grpc/reflection/v1/reflection";
import * as v1alpha from "@permits/proto/grpc/reflection/v1alpha/reflection";
import { file_permits_common_v1_callers } from "@permits/proto/common/v1/callers";
import { file_permits_common_v1_common } from "@permits/proto/common/v1/common";
import { file_permits_stormwater_v1_stormwater, StormwaterService } from "@permits/proto/stormwater/v1/stormwater";
import { parseInternalTokens, requireCaller } from "../interceptors/internal-auth.js";
import { createLogger } from "@permits/runtime";
import { serve, type RunningService } from "./serve.js";

const TOKENS = { engine: "e".repeat(24), gateway: "g".repeat(24), admin: "a".repeat(24) };
const HOSTED = ["grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection", "permits.stormwater.v1.StormwaterService"];

let server: RunningService;
let baseUrl: string;
beforeAll(async () => {
  const tokens = parseInternalTokens(Object.entries(TOKENS).map(([scope, token]) => `${scope}:${scope}:${token}`), "INTERNAL_TOKENS");
  server = await serve({ name: "t", services: [{ service: StormwaterService, impl: {} }], host: "127.0.0.1", port: 0, logger: createLogger("t", { level: "silent" }), interceptors: [requireCaller(tokens, [StormwaterService])], shutdownGraceMs: 200 });
  baseUrl = `http://127.0.0.1:${server.port}`;
});
afterAll(() => server?.close());

type Request = v1.ServerReflectionRequest["messageRequest"];

/** Sends the requests on one stream (v1 or v1alpha) and collects every answer. */
async function ask(version: "v1" | "v1alpha", requests: Request[], token: string | null = TOKENS.engine) {
  const headers = token ? { authorization: `Bearer ${token}` } : undefined;
  const transport = createGrpcTransport({ baseUrl });
  const answers: (v1.ServerReflectionResponse | v1alpha.ServerReflectionResponse)[] = [];
  if (version === "v1") {
    const input = (async function* () {
      for (const r of requests) yield create(v1.ServerReflectionRequestSchema, { host: "h", messageRequest: r });
    })();
    for await (const a of createClient(v1.ServerReflection, transport).serverReflectionInfo(input, { headers })) answers.push(a);
  } else {
    const input = (async function* () {
      for (const r of requests) yield create(v1alpha.ServerReflectionRequestSchema, { host: "h", messageRequest: r });
    })();
    for await (const a of createClient(v1alpha.ServerReflection, transport).serverReflectionInfo(input, { headers })) answers.push(a);
  }
  return answers;
}

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const compiled = (f: DescFile) => ({ name: f.proto.name, bytes: hex(toBinary(FileDescriptorProtoSchema, f.proto)) });
const filesOf = (a: v1.ServerReflectionResponse | v1alpha.ServerReflectionResponse) => {
  if (a.messageResponse.case !== "fileDescriptorResponse") throw new Error(`expected files, got ${a.messageResponse.case}`);
  return a.messageResponse.value.fileDescriptorProto.map((bytes) => ({ name: fromBinary(FileDescriptorProtoSchema, bytes).name, bytes: hex(bytes) }));
};

describe.each(["v1", "v1alpha"] as const)("grpc.reflection.%s", (version) => {
  it("lists exactly the services this process hosts, health and reflection included", async () => {
    const [a] = await ask(version, [{ case: "listServices", value: "*" }]);
    expect(a.messageResponse.case).toBe("listServicesResponse");
    const names = a.messageResponse.case === "listServicesResponse" ? a.messageResponse.value.service.map((s) => s.name) : [];
    expect(names.sort()).toEqual(HOSTED);
    expect([a.validHost, a.originalRequest?.messageRequest]).toEqual(["h", { case: "listServices", value: "*" }]);
  });

  it("serves the file declaring a symbol with every file its types come from, byte for byte as compiled", async () => {
    const [byMethod, byMessage, byName, options] = await ask(version, [
      { case: "fileContainingSymbol", value: "permits.stormwater.v1.StormwaterService.Determine" },
      { case: "fileContainingSymbol", value: "permits.common.v1.Citation" },
      { case: "fileByFilename", value: "google/protobuf/struct.proto" },
      { case: "fileByFilename", value: "permits/common/v1/callers.proto" },
    ]);
    const stormwater = [file_permits_stormwater_v1_stormwater, file_permits_common_v1_common, file_google_protobuf_struct].map(compiled);
    const byNameOrder = (x: { name: string }, y: { name: string }) => x.name.localeCompare(y.name);
    expect(filesOf(byMethod).sort(byNameOrder)).toEqual(stormwater.sort(byNameOrder));
    expect(filesOf(byMethod)[0].name).toBe("permits/stormwater/v1/stormwater.proto");
    // common.proto imports struct.proto (a changelog fact's value is a google.protobuf.Value).
    expect(filesOf(byMessage)).toEqual([file_permits_common_v1_common, file_google_protobuf_struct].map(compiled));
    expect(filesOf(byName)).toEqual([compiled(file_google_protobuf_struct)]);
    // The library follows type references, not imports: the file of the callers option every RPC
    // carries (and descriptor.proto, which it imports) comes by its name, as a client asks for an
    // import it lacks (buf curl does: test/reflection.test.ts calls a method with reflection alone).
    expect(file_permits_stormwater_v1_stormwater.proto.dependency).toContain("permits/common/v1/callers.proto");
    expect(filesOf(options)).toEqual([compiled(file_permits_common_v1_callers)]);
    expect(file_permits_common_v1_callers.proto.dependency).toEqual([file_google_protobuf_descriptor.proto.name]);
  });

  it("answers NOT_FOUND and UNIMPLEMENTED in the stream, which goes on answering", async () => {
    const answers = await ask(version, [
      { case: "fileContainingSymbol", value: "permits.nwp.v1.NwpService" },
      { case: "fileByFilename", value: "permits/transport/v1/transport.proto" },
      { case: undefined },
      { case: "listServices", value: "" },
    ]);
    expect(answers.map((a) => (a.messageResponse.case === "errorResponse" ? [a.messageResponse.value.errorCode, a.messageResponse.value.errorMessage] : a.messageResponse.case))).toEqual([
      [Code.NotFound, "Symbol not found: permits.nwp.v1.NwpService"],
      [Code.NotFound, "Proto file not found: permits/transport/v1/transport.proto"],
      [Code.Unimplemented, "Unimplemented method for request: undefined"],
      "listServicesResponse",
    ]);
  });
});

describe("the credential", () => {
  it("is required: none or an unknown token is Unauthenticated; a token of any scope is admitted", async () => {
    for (const version of ["v1", "v1alpha"] as const) {
      for (const token of [null, "not-a-known-token-0123456789"]) {
        const err = await ask(version, [{ case: "listServices", value: "*" }], token).catch((e) => ConnectError.from(e));
        expect(err instanceof ConnectError && err.code, `${version} ${token}`).toBe(Code.Unauthenticated);
      }
      for (const token of Object.values(TOKENS)) {
        expect((await ask(version, [{ case: "listServices", value: "*" }], token))[0].messageResponse.case).toBe("listServicesResponse");
      }
    }
  });
});
