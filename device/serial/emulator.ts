// Local mode's stand-in for the sensor: a mock serial port that receives a reading line every second.
//
// It is a serialport stream over serialport's own mock binding, so its lines travel exactly the path a real
// port's do (stream → line splitter → spool → backend); only the bytes are made up.
import { SerialPortMock } from 'serialport';
import type { Port } from './serial-link.ts';

export const EMULATOR_PATH = '/dev/emulated-sensor';

export interface Emulator {
  /** A new, unopened mock port (for the serial link's createPort). */
  createPort(): Port;
  /** Stops producing lines. */
  stop(): void;
}

interface EmulatorOptions {
  intervalMs?: number;
  baudRate?: number;
  /** Returns a number in [0, 1); replaceable so tests get known values. */
  random?: () => number;
}

export function createEmulator({
  intervalMs = 1000,
  baudRate = 9600,
  random = Math.random,
}: EmulatorOptions = {}): Emulator {
  SerialPortMock.binding.createPort(EMULATOR_PATH, { echo: false, record: false });
  let port: SerialPortMock | undefined;
  let celsius = 21;

  // A slow random walk, like a room thermometer: values a person can recognise on the status page.
  const nextLine = () => {
    celsius = Math.min(30, Math.max(15, celsius + (random() - 0.5) * 0.2));
    return `temperature_c=${celsius.toFixed(2)}\r\n`;
  };

  const timer = setInterval(function emitLine() {
    if (port?.isOpen && port.port) port.port.emitData(nextLine());
  }, intervalMs);
  timer.unref();

  return {
    createPort() {
      port = new SerialPortMock({ path: EMULATOR_PATH, baudRate, autoOpen: false });
      return port;
    },
    stop() {
      clearInterval(timer);
    },
  };
}
