// gRPC server reflection (grpc.reflection.v1 and v1alpha) from the compiled descriptors, so
// `buf curl`, grpcurl and the like can list and call a service without its .proto files.
//
// The answers come from gRPC's own implementation, @grpc/reflection; this module only carries
// its requests and answers over a Connect bidi-stream handler. The package's index exports
// only its grpc-js server glue, so its implementation class is imported from the file that
// declares it (the version is pinned exactly; reflection.test.ts pins the answers).
import type { DescFile, DescService } from "@bufbuild/protobuf";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import { ReflectionV1Implementation } from "@grpc/reflection/build/src/implementations/reflection-v1.js";
import * as v1 from "@permits/proto/grpc/reflection/v1/reflection";
import * as v1alpha from "@permits/proto/grpc/reflection/v1alpha/reflection";
import type { HostedService } from "@permits/runtime";

type LibraryRequest = Parameters<ReflectionV1Implementation["handleServerReflectionRequest"]>[0];
type LibraryResponse = ReturnType<ReflectionV1Implementation["handleServerReflectionRequest"]>;
type PackageDefinition = ConstructorParameters<typeof ReflectionV1Implementation>[0];

const REFLECTION_SERVICES: readonly DescService[] = [v1.ServerReflection, v1alpha.ServerReflection];

/**
 * Both reflection services, describing `services` and themselves: each service's file and
 * every file it imports (the well-known types included), byte for byte as compiled.
 */
export function reflectionServices(services: readonly DescService[]): HostedService[] {
  const described = [...services, ...REFLECTION_SERVICES];
  const compiled = compiledFiles(described.map((s) => s.file));
  const reflection = new ReflectionV1Implementation(packageDefinitionOf(compiled), {
    services: described.map((s) => s.typeName),
  });
  // The two versions' messages are the same; the library answers v1alpha with this class too.
  const answer = (req: v1.ServerReflectionRequest | v1alpha.ServerReflectionRequest) => reflection.handleServerReflectionRequest(toLibrary(req));
  const v1Impl: ServiceImpl<typeof v1.ServerReflection> = {
    async *serverReflectionInfo(requests) {
      for await (const req of requests) yield create(v1.ServerReflectionResponseSchema, fromLibrary(req, answer(req), compiled));
    },
  };
  const v1alphaImpl: ServiceImpl<typeof v1alpha.ServerReflection> = {
    async *serverReflectionInfo(requests) {
      for await (const req of requests) yield create(v1alpha.ServerReflectionResponseSchema, fromLibrary(req, answer(req), compiled));
    },
  };
  return [hosted(v1.ServerReflection, v1Impl), hosted(v1alpha.ServerReflection, v1alphaImpl)];
}

/** Checked against its own service above; a bidi handler of one message type is no handler of DescService's. */
function hosted(service: DescService, impl: object): HostedService {
  return { service, impl: impl as HostedService["impl"] };
}

/** Each file of `roots` and every file it imports, by its name (a/b.proto), serialized as compiled. */
function compiledFiles(roots: readonly DescFile[]): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  const add = (f: DescFile) => {
    if (files.has(f.proto.name)) return;
    files.set(f.proto.name, toBinary(FileDescriptorProtoSchema, f.proto));
    f.dependencies.forEach(add);
  };
  roots.forEach(add);
  return files;
}

/**
 * The library reads only the serialized files a package definition's entries carry (proto-loader
 * gives every entry the whole set), so one entry with our compiled files is all it needs. Its
 * own loaders would rebuild the files through protobufjs instead, which drops json names and
 * shortens type references: clients would then see files that differ from the compiled ones.
 */
function packageDefinitionOf(files: Map<string, Uint8Array>): PackageDefinition {
  const fileDescriptorProtos = [...files.values()].map((bytes) => Buffer.from(bytes));
  return { compiled: { format: "Protocol Buffer 3 FileDescriptorSet", type: {}, fileDescriptorProtos } } as unknown as PackageDefinition;
}

/** Our request in the library's form: the oneof's case names the field holding its value. */
function toLibrary(req: v1.ServerReflectionRequest | v1alpha.ServerReflectionRequest): LibraryRequest {
  const { case: kind, value } = req.messageRequest;
  return kind === undefined ? { host: req.host } : { host: req.host, messageRequest: kind, [kind]: value };
}

/**
 * The library's answer as our response message's fields (it sets exactly one of the four). The
 * files it names are sent as compiled: its own encoding (protobufjs) drops the custom options,
 * such as the callers each RPC admits.
 */
function fromLibrary<R extends v1.ServerReflectionRequest | v1alpha.ServerReflectionRequest>(req: R, res: LibraryResponse, compiled: Map<string, Uint8Array>) {
  const { errorResponse: error, fileDescriptorResponse: files, listServicesResponse: list, allExtensionNumbersResponse: numbers } = res;
  const asCompiled = (b: Buffer | Uint8Array | string) => {
    const bytes = bytesOf(b);
    return compiled.get(fromBinary(FileDescriptorProtoSchema, bytes).name) ?? bytes;
  };
  const messageResponse =
    error ? { case: "errorResponse" as const, value: { errorCode: error.errorCode ?? 0, errorMessage: error.errorMessage ?? "" } }
    : files ? { case: "fileDescriptorResponse" as const, value: { fileDescriptorProto: (files.fileDescriptorProto ?? []).map(asCompiled) } }
    : list ? { case: "listServicesResponse" as const, value: { service: (list.service ?? []).map((s) => ({ name: s.name ?? "" })) } }
    : numbers ? { case: "allExtensionNumbersResponse" as const, value: { baseTypeName: numbers.baseTypeName ?? "", extensionNumber: numbers.extensionNumber ?? [] } }
    : { case: undefined };
  return { validHost: req.host, originalRequest: req, messageResponse };
}

/** proto-loader's bytes may be a Buffer, a Uint8Array or base64 text. */
function bytesOf(b: Buffer | Uint8Array | string): Uint8Array {
  return typeof b === "string" ? Buffer.from(b, "base64") : b;
}
