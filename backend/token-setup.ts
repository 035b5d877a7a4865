// What the backend's tokens let in, said once at start-up: a missing DEVICE_TOKEN or READ_TOKENS is easy to miss.
import type { Logger } from '../lib/logger.ts';
import type { BackendConfig } from './config.ts';

type Tokens = Pick<BackendConfig, 'environment' | 'deviceToken' | 'deviceTokens' | 'readTokens'>;

/** Logs what the token settings mean; returns whether the device socket is open to devices without a token. */
export function tellTokenSetup({ environment, deviceToken, deviceTokens, readTokens }: Tokens, log: Logger): boolean {
  // Secure by default: without a token only local mode lets devices in; elsewhere every upgrade gets 401.
  const openDeviceSocket = !deviceToken && !deviceTokens && environment === 'local';
  if (deviceToken && deviceTokens) {
    log.info(
      { devices: deviceTokens.size },
      'DEVICE_TOKENS lists the devices that must use their own token; ' +
        'DEVICE_TOKEN admits only devices it does not list',
    );
  }
  if (!deviceToken && !deviceTokens) {
    log.warn(
      openDeviceSocket
        ? 'DEVICE_TOKEN is not set: in local mode the device socket accepts devices without a token'
        : 'DEVICE_TOKEN is not set: every device socket upgrade is refused (401); ' +
            'set DEVICE_TOKEN on the backend and the device service',
    );
  }
  if (!readTokens && environment !== 'local') {
    log.warn(
      'READ_TOKENS is not set: GET /api/readings and /api/devices answer every request with 401; ' +
        'set READ_TOKENS or READ_TOKENS_FILE on the backend',
    );
  }
  return openDeviceSocket;
}
