import { Stack } from '@mantine/core';
import { useState } from 'react';
import type { Volume } from '../../../../shared/schemas/volumes';
import { useProject } from '../../app/project';
import { confirmNamedDelete } from '../../kit/confirm-destroy';
import { CreateButton } from '../../kit/create-button';
import { QueryStates } from '../../kit/query-states';
import { TitleBar } from '../../kit/title-bar';
import { CreateVolumeDialog, type ClonePreset } from './create-volume-dialog';
import { useDeleteVolume, useVolumes } from './use-volumes';
import { VolumeDrawer } from './volume-drawer';
import { VolumesTable } from './volumes-table';

/** The project's data volumes: list, create or clone, delete, and one volume's snapshots and backups in a drawer. */
export function VolumesPage() {
  const project = useProject();
  const volumes = useVolumes(project);
  const remove = useDeleteVolume(project);
  const [creating, setCreating] = useState<{ preset: ClonePreset | null } | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const shown = volumes.data?.find((v) => v.name === open) ?? null;

  const confirmDelete = (volume: Volume) =>
    confirmNamedDelete('volume', volume.name, {
      goes: 'Its data, its snapshots and its backups go with it.',
      affects: 'It is refused while a box mounts it: detach it from those boxes first.',
      run: () => remove.mutateAsync(volume),
      gone: 'The volume and its copies are gone.',
    });

  return (
    <Stack>
      <TitleBar title={`Volumes in ${project}`}>
        <CreateButton label="Create volume" onClick={() => setCreating({ preset: null })} />
      </TitleBar>
      <QueryStates
        query={volumes}
        what="the volumes"
        empty={`No volumes in ${project} yet. A volume holds data that outlives any box: create one, then mount it in boxes at a path.`}
      >
        {(list) => <VolumesTable volumes={list} onOpen={setOpen} onDelete={confirmDelete} />}
      </QueryStates>
      <VolumeDrawer volume={shown} onClose={() => setOpen(null)} onClone={(preset) => setCreating({ preset })} />
      <CreateVolumeDialog
        project={project}
        opened={creating !== null}
        preset={creating?.preset}
        onClose={() => setCreating(null)}
      />
    </Stack>
  );
}
