import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { ApiError, type Problem } from '../../../shared/errors';
import type { Base, BaseCreate } from '../../../shared/schemas/system';
import type { BaseImportProgress } from '../../../shared/schemas/snapshots';
import { useApi, useClient } from './client-context';
import { subscribeEvents } from './events';
import { queryKeys } from './query-keys';
import { apiUrl } from './session';

export function useCreateBase() {
  const client = useClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: BaseCreate) => client.createBase(body),
    onSuccess: () => qc.invalidateQueries({ queryKey: queryKeys.bases }),
  });
}

export function useDeleteBase() {
  const client = useClient();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => client.deleteBase(name),
    onSuccess: () => qc.invalidateQueries({ queryKey: queryKeys.bases }),
  });
}

/** How far an upload got: bytes sent of the file's size. */
export interface UploadProgress {
  sent: number;
  total: number;
}

/**
 * POST /v1/bases/{name}/import with XMLHttpRequest: fetch reports no upload
 * progress (and Chromium streams request bodies over HTTP/2 only). The token
 * goes in the Authorization header, never the URL.
 */
function uploadBase(token: string, name: string, file: File, onProgress: (p: UploadProgress) => void): Promise<Base> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `${apiUrl}/v1/bases/${encodeURIComponent(name)}/import`);
    xhr.setRequestHeader('authorization', `Bearer ${token}`);
    xhr.setRequestHeader('content-type', 'application/octet-stream');
    xhr.setRequestHeader('accept', 'application/json');
    xhr.upload.onprogress = (e) => onProgress({ sent: e.loaded, total: e.lengthComputable ? e.total : file.size });
    xhr.onerror = () =>
      reject(new ApiError('engine_unavailable', `cannot reach the Boxdesk core at ${apiUrl}; is it running?`));
    xhr.onload = () => {
      let body: unknown;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = { detail: xhr.responseText.slice(0, 500) || `HTTP ${xhr.status}` };
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(body as Base);
      else reject(ApiError.fromProblem(body as Partial<Problem>, xhr.status));
    };
    xhr.send(file);
  });
}

/** Imports a rootfs tar as a base, with the upload's progress. */
export function useImportBase() {
  const { token } = useApi();
  const qc = useQueryClient();
  const [upload, setUpload] = useState<UploadProgress | null>(null);
  const mutation = useMutation({
    mutationFn: ({ name, file }: { name: string; file: File }) => {
      setUpload({ sent: 0, total: file.size });
      return uploadBase(token, name, file, setUpload);
    },
    onSettled: () => qc.invalidateQueries({ queryKey: queryKeys.bases }),
  });
  return { ...mutation, upload };
}

/** The latest `base.import` event for a base (the core unpacking what was sent), or null. */
export function useBaseImportProgress(name: string | null): BaseImportProgress | null {
  const [progress, setProgress] = useState<BaseImportProgress | null>(null);
  useEffect(() => {
    setProgress(null);
    if (!name) return;
    return subscribeEvents((events) => {
      for (const e of events) if (e.type === 'base.import' && e.data.name === name) setProgress(e.data);
    });
  }, [name]);
  return progress;
}
