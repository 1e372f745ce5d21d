import type { Codec } from './tools';

// Web-standard globals of both browsers and Node; shared/ compiles without DOM or Node types.
declare const TextDecoder: new (label: string, options: { fatal: boolean }) => { decode(bytes: Uint8Array): string };
declare const TextEncoder: new () => { encode(text: string): Uint8Array };
declare function atob(text: string): string;
declare function btoa(binary: string): string;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();

/** Bytes and text for the MCP tools, with the platform's TextDecoder, TextEncoder, atob and btoa. */
export const webCodec: Codec = {
  utf8: (bytes) => {
    try {
      return strictUtf8.decode(bytes);
    } catch {
      return null;
    }
  },
  fromUtf8: (text) => encoder.encode(text),
  base64: (bytes) => {
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) {
      binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    }
    return btoa(binary);
  },
  fromBase64: (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0)),
};
