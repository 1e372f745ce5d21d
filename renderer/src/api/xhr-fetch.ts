import { BoxdeskClient, type FetchLike, type FetchResponse } from '../../../shared/client';
import { apiUrl } from './session';

/**
 * A fetch over XMLHttpRequest, for uploads: fetch cannot report how much of a
 * request body was sent (and Chromium streams request bodies over HTTP/2
 * only), XHR's `upload.onprogress` can. The shared client still builds the
 * request (token in the Authorization header, never the URL) and turns a
 * problem into ApiError.
 */
function xhrFetch(onProgress: (sent: number, total: number) => void, signal?: AbortSignal): FetchLike {
  return (url, init) =>
    new Promise<FetchResponse>((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open(init.method, url);
      // The browser sets Content-Length from the body itself and refuses it from us.
      for (const [k, v] of Object.entries(init.headers))
        if (k.toLowerCase() !== 'content-length') xhr.setRequestHeader(k, v);
      xhr.upload.onprogress = (e) => onProgress(e.loaded, e.total);
      xhr.onerror = () => reject(new Error('the upload failed on the network'));
      xhr.onabort = () => reject(new DOMException('the upload was cancelled', 'AbortError'));
      xhr.onload = () => {
        const text = xhr.responseText;
        resolve({
          ok: xhr.status >= 200 && xhr.status < 300,
          status: xhr.status,
          headers: { get: (h) => xhr.getResponseHeader(h) },
          text: () => Promise.resolve(text),
          json: () => Promise.resolve(JSON.parse(text) as unknown),
          body: null,
        });
      };
      signal?.addEventListener('abort', () => xhr.abort());
      xhr.send(init.body as XMLHttpRequestBodyInit);
    });
}

/**
 * Like xhrFetch, but the answer's body streams: it resolves once the head is in, and its body
 * gives the text as it arrives (a `box up` answer: progress lines while the box is made).
 */
function xhrStreamingFetch(onProgress: (sent: number, total: number) => void, signal?: AbortSignal): FetchLike {
  return (url, init) =>
    new Promise<FetchResponse>((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      const encoder = new TextEncoder();
      let seen = 0;
      let controller!: ReadableStreamDefaultController<Uint8Array>;
      const body = new ReadableStream<Uint8Array>({ start: (c) => (controller = c) });
      const pass = () => {
        const text = xhr.responseText;
        if (text.length > seen) controller.enqueue(encoder.encode(text.slice(seen)));
        seen = text.length;
      };
      const loaded = new Promise<string>((done, fail) => {
        xhr.onload = () => {
          pass();
          controller.close();
          done(xhr.responseText);
        };
        xhr.onerror = () => {
          const err = new Error('the connection to the core was lost');
          controller.error(err);
          fail(err);
          reject(err);
        };
        xhr.onabort = () => {
          const err = new DOMException('cancelled', 'AbortError');
          controller.error(err);
          fail(err);
          reject(err);
        };
      });
      loaded.catch(() => undefined);
      xhr.open(init.method, url);
      for (const [k, v] of Object.entries(init.headers))
        if (k.toLowerCase() !== 'content-length') xhr.setRequestHeader(k, v);
      xhr.upload.onprogress = (e) => onProgress(e.loaded, e.total);
      xhr.onprogress = pass;
      xhr.onreadystatechange = () => {
        if (xhr.readyState !== XMLHttpRequest.HEADERS_RECEIVED) return;
        resolve({
          ok: xhr.status >= 200 && xhr.status < 300,
          status: xhr.status,
          headers: { get: (h) => xhr.getResponseHeader(h) },
          text: () => loaded,
          json: async () => JSON.parse(await loaded) as unknown,
          body,
        });
      };
      signal?.addEventListener('abort', () => xhr.abort());
      xhr.send(init.body as XMLHttpRequestBodyInit);
    });
}

/**
 * A client whose requests report their upload progress (bytes sent of the body's size); with `streaming`,
 * its answers stream as they come too (`box up` from the window).
 */
export function uploadingClient(
  token: string,
  onProgress: (sent: number, total: number) => void,
  { signal, streaming = false }: { signal?: AbortSignal; streaming?: boolean } = {},
): BoxdeskClient {
  const fetch = (streaming ? xhrStreamingFetch : xhrFetch)(onProgress, signal);
  return new BoxdeskClient({ baseUrl: apiUrl, token, fetch });
}
