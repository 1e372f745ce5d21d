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

/** A client whose requests report their upload progress (bytes sent of the body's size). */
export function uploadingClient(
  token: string,
  onProgress: (sent: number, total: number) => void,
  signal?: AbortSignal,
): BoxdeskClient {
  return new BoxdeskClient({ baseUrl: apiUrl, token, fetch: xhrFetch(onProgress, signal) });
}
