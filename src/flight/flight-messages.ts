/**
 * The Arrow Flight protocol's messages (Arrow's Flight.proto, package `arrow.flight.protocol`), declared here with
 * protobufjs reflection from the specification's field numbers: the wire format is the contract, so every number
 * below is the one the specification gives (docs/format/Flight.html). FlightData, the one message sent per record
 * batch, has its own codec (flight-data.ts).
 */
import protobuf from 'protobufjs';

const { Type, Field, Enum } = protobuf;

/** A message type of `fields` as `[name, number, type, rule?]`. */
function message(name: string, fields: [string, number, string, 'repeated'?][]): protobuf.Type {
  const t = new Type(name);
  for (const [field, id, type, rule] of fields) t.add(new Field(field, id, type, rule));
  return t;
}

const root = new protobuf.Root();
const ns = root.define('arrow.flight.protocol');

ns.add(new Enum('DescriptorType', { UNKNOWN: 0, PATH: 1, CMD: 2 }));
ns.add(new Enum('CancelStatus', { CANCEL_STATUS_UNSPECIFIED: 0, CANCELLED: 1, CANCELLING: 2, NOT_CANCELLABLE: 3 }));
ns.add(
  message('HandshakeRequest', [
    ['protocolVersion', 1, 'uint64'],
    ['payload', 2, 'bytes'],
  ]),
);
ns.add(
  message('HandshakeResponse', [
    ['protocolVersion', 1, 'uint64'],
    ['payload', 2, 'bytes'],
  ]),
);
ns.add(message('Empty', []));
ns.add(
  message('ActionType', [
    ['type', 1, 'string'],
    ['description', 2, 'string'],
  ]),
);
ns.add(message('Criteria', [['expression', 1, 'bytes']]));
ns.add(
  message('Action', [
    ['type', 1, 'string'],
    ['body', 2, 'bytes'],
  ]),
);
ns.add(message('Result', [['body', 1, 'bytes']]));
ns.add(message('SchemaResult', [['schema', 1, 'bytes']]));
ns.add(
  message('FlightDescriptor', [
    ['type', 1, 'DescriptorType'],
    ['cmd', 2, 'bytes'],
    ['path', 3, 'string', 'repeated'],
  ]),
);
ns.add(message('Ticket', [['ticket', 1, 'bytes']]));
ns.add(message('Location', [['uri', 1, 'string']]));
ns.add(
  message('Timestamp', [
    ['seconds', 1, 'int64'],
    ['nanos', 2, 'int32'],
  ]),
);
ns.add(
  message('FlightEndpoint', [
    ['ticket', 1, 'Ticket'],
    ['location', 2, 'Location', 'repeated'],
    // google.protobuf.Timestamp: seconds = 1, nanos = 2 (declared above under this package; the wire is the same).
    ['expirationTime', 3, 'Timestamp'],
    ['appMetadata', 4, 'bytes'],
  ]),
);
ns.add(
  message('FlightInfo', [
    ['schema', 1, 'bytes'],
    ['flightDescriptor', 2, 'FlightDescriptor'],
    ['endpoint', 3, 'FlightEndpoint', 'repeated'],
    ['totalRecords', 4, 'int64'],
    ['totalBytes', 5, 'int64'],
    ['ordered', 6, 'bool'],
    ['appMetadata', 7, 'bytes'],
  ]),
);
ns.add(message('CancelFlightInfoRequest', [['info', 1, 'FlightInfo']]));
ns.add(message('CancelFlightInfoResult', [['status', 1, 'CancelStatus']]));
ns.add(message('PutResult', [['appMetadata', 1, 'bytes']]));
// google.protobuf.Any: type_url = 1, value = 2 (the Flight SQL commands travel in it).
ns.add(
  message('Any', [
    ['typeUrl', 1, 'string'],
    ['value', 2, 'bytes'],
  ]),
);
root.resolveAll();

/** A message type of the protocol by its name. */
export const flightType = (name: string): protobuf.Type => root.lookupType(`arrow.flight.protocol.${name}`);

export interface FlightDescriptor {
  type?: number;
  cmd?: Uint8Array;
  path?: string[];
}

export interface FlightEndpoint {
  ticket: { ticket: Uint8Array };
  location?: { uri: string }[];
  expirationTime?: { seconds: number; nanos: number };
  appMetadata?: Uint8Array;
}

export interface FlightInfo {
  schema: Uint8Array;
  flightDescriptor: FlightDescriptor;
  endpoint: FlightEndpoint[];
  /** -1: unknown, as the specification says. */
  totalRecords: number;
  totalBytes: number;
  ordered?: boolean;
}

export interface Action {
  type: string;
  body: Uint8Array;
}

/** The descriptor type of a command (FlightDescriptor.DescriptorType.CMD). */
export const DESCRIPTOR_CMD = 2;

/** Encodes a message of the protocol (its fields named in camelCase, as protobufjs names them). */
export function encodeMessage(name: string, value: object): Buffer {
  const t = flightType(name);
  return Buffer.from(t.encode(t.fromObject(value)).finish());
}

/** Decodes a message of the protocol into plain values (bytes as Buffers, 64-bit integers as numbers). */
export function decodeMessage<T>(name: string, bytes: Uint8Array): T {
  const t = flightType(name);
  return t.toObject(t.decode(bytes), { longs: Number, bytes: Buffer, defaults: true }) as T;
}
