// Errors inside the system are ConnectErrors with structured details; only the gateway turns
// them into the public vocabularies (the stormwater surface's or the NWP surface's).
import { Code, ConnectError } from "@connectrpc/connect";
import {
  BadRequestSchema,
  ResourceNotFoundSchema,
  ViolationReason,
  type BadRequest,
  type ResourceNotFound,
} from "@permits/proto/common/v1/common";

export { ViolationReason };

export interface Violation {
  field: string;
  description: string;
  reason: ViolationReason;
  knownValues?: string[];
}

export interface BadRequestExtras {
  unknownKeys?: string[];
  knownKeys?: string[];
}

/** InvalidArgument carrying a BadRequest detail (field violations, unknown and known keys). */
export function invalidArgument(message: string, violations: Violation[], extras: BadRequestExtras = {}): ConnectError {
  return new ConnectError(message, Code.InvalidArgument, undefined, [
    {
      desc: BadRequestSchema,
      value: {
        violations: violations.map((v) => ({
          field: v.field,
          description: v.description,
          reason: v.reason,
          knownValues: v.knownValues ?? [],
        })),
        unknownKeys: extras.unknownKeys ?? [],
        knownKeys: extras.knownKeys ?? [],
      },
    },
  ]);
}

/** NotFound for a resource looked up by identifier, with the identifiers that exist. */
export function resourceNotFound(message: string, resource: string, requested: string, validValues: string[]): ConnectError {
  return new ConnectError(message, Code.NotFound, undefined, [
    { desc: ResourceNotFoundSchema, value: { resource, requested, validValues } },
  ]);
}

export function badRequestOf(err: ConnectError): BadRequest | undefined {
  return err.findDetails(BadRequestSchema)[0];
}

export function resourceNotFoundOf(err: ConnectError): ResourceNotFound | undefined {
  return err.findDetails(ResourceNotFoundSchema)[0];
}
