/**
 * The Trino connection as the settings describe it (API.md "Trino connection"): URL, CA bundle, the gateway's
 * own user and credentials, the `topicgate` source and client tag. Files named by the settings are read here,
 * once at start-up (a token file is read again by the port whenever it changes).
 */
import { readFileSync } from 'node:fs';
import type { Config } from '../config/config.js';
import { readSecretFile } from '../core/secret-file.js';
import type { HttpTrinoOptions } from '../trino/trino-connection.js';

/** Every query carries this source and this client tag, so resource-group selectors can cap the gateway. */
const TRINO_SOURCE = 'topicgate';

type ConnectionSettings = Pick<
  Config,
  | 'trinoUrl'
  | 'trinoUser'
  | 'trinoCaFile'
  | 'trinoPassword'
  | 'trinoPasswordFile'
  | 'trinoTokenFile'
  | 'trinoEncoding'
  | 'trinoSegmentFetch'
>;

/** The options of the HTTP Trino port for these settings; a password file is read here. */
export function httpTrinoOptions(config: ConnectionSettings): HttpTrinoOptions {
  const options: HttpTrinoOptions = {
    server: config.trinoUrl,
    user: config.trinoUser,
    source: TRINO_SOURCE,
    clientTags: [TRINO_SOURCE],
    encodings: config.trinoEncoding,
    segmentFetch: config.trinoSegmentFetch,
  };
  if (config.trinoCaFile) options.ca = readFileSync(config.trinoCaFile);
  if (config.trinoPassword) options.password = config.trinoPassword;
  if (config.trinoPasswordFile)
    options.password = readSecretFile('TOPICGATE_TRINO_PASSWORD_FILE', config.trinoPasswordFile).toString('utf8');
  if (config.trinoTokenFile) options.tokenFile = config.trinoTokenFile;
  return options;
}
