/**
 * The FlightService of Arrow's Flight.proto as a gRPC service definition for @grpc/grpc-js: each method's path
 * (`/arrow.flight.protocol.FlightService/<Method>`), whether it streams, and its messages' codecs (flight-messages.ts;
 * DoGet's FlightData are written as encoded bytes by flight-data.ts).
 */
import type { ServiceDefinition } from '@grpc/grpc-js';
import { decodeMessage, encodeMessage } from './flight-messages.js';

const PATH = '/arrow.flight.protocol.FlightService/';

/** A method of the service: its request and response message names (`bytes`: already encoded). */
function method(name: string, request: string, response: string, requestStream: boolean, responseStream: boolean) {
  return {
    path: `${PATH}${name}`,
    requestStream,
    responseStream,
    requestSerialize: (v: object) => encodeMessage(request, v),
    requestDeserialize: (b: Buffer) => decodeMessage<object>(request, b),
    responseSerialize: response === 'bytes' ? (v: Buffer) => v : (v: object) => encodeMessage(response, v),
    responseDeserialize: (b: Buffer) => (response === 'bytes' ? b : decodeMessage<object>(response, b)),
  };
}

/** The service's methods, as Flight.proto declares them. */
export const flightService = {
  Handshake: method('Handshake', 'HandshakeRequest', 'HandshakeResponse', true, true),
  ListFlights: method('ListFlights', 'Criteria', 'FlightInfo', false, true),
  GetFlightInfo: method('GetFlightInfo', 'FlightDescriptor', 'FlightInfo', false, false),
  // PollFlightInfo answers a PollInfo, which this server never makes (UNIMPLEMENTED): its codec is FlightInfo's
  // only so the definition is complete.
  PollFlightInfo: method('PollFlightInfo', 'FlightDescriptor', 'FlightInfo', false, false),
  GetSchema: method('GetSchema', 'FlightDescriptor', 'SchemaResult', false, false),
  DoGet: method('DoGet', 'Ticket', 'bytes', false, true),
  // DoPut and DoExchange take FlightData, which this read-only server refuses unread.
  DoPut: method('DoPut', 'Empty', 'PutResult', true, true),
  DoExchange: method('DoExchange', 'Empty', 'bytes', true, true),
  DoAction: method('DoAction', 'Action', 'Result', false, true),
  ListActions: method('ListActions', 'Empty', 'ActionType', false, true),
} as unknown as ServiceDefinition;
