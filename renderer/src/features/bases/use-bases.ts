import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { BaseImportProgress } from '../../../../shared/schemas/snapshots';
import type { BaseCreate } from '../../../../shared/schemas/system';
import { useApi, useClient } from '../../api/client-context';
import { useClientMutation } from '../../api/client-mutation';
import { subscribeEvents } from '../../api/events';
import { uploadingClient } from '../../api/xhr-fetch';

/** The bases' one query; base.* events refetch it. */
export const baseKeys = { list: ['bases'] as const };

export function useBases(enabled = true) {
  const client = useClient();
  return useQuery({ queryKey: baseKeys.list, queryFn: () => client.listBases(), staleTime: 30_000, enabled });
}

export function useCreateBase() {
  return useClientMutation((c, body: BaseCreate) => c.createBase(body), baseKeys.list);
}

export function useUpdateBase() {
  return useClientMutation(
    (c, { name, warm }: { name: string; warm: number }) => c.updateBase(name, { warm }),
    baseKeys.list,
  );
}

export function useDeleteBase() {
  return useClientMutation((c, name: string) => c.deleteBase(name), baseKeys.list);
}

/** How far an upload got: bytes sent of the file's size. */
export interface UploadProgress {
  sent: number;
  total: number;
}

/** Imports a rootfs tar as a base (POST /v1/bases/{name}/import), with the upload's progress. */
export function useImportBase() {
  const { token } = useApi();
  const qc = useQueryClient();
  const [upload, setUpload] = useState<UploadProgress | null>(null);
  const mutation = useMutation({
    mutationFn: ({ name, file }: { name: string; file: File }) => {
      setUpload({ sent: 0, total: file.size });
      const client = uploadingClient(token, (sent, total) => setUpload({ sent, total: total || file.size }));
      return client.importBase(name, file, file.size);
    },
    onSettled: () => qc.invalidateQueries({ queryKey: baseKeys.list }),
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
