import { Alert, Button, Group, Modal, SegmentedControl, Select, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useEffect } from 'react';
import type { BaseCreate } from '../../../../shared/schemas/system';
import { useCreateBase } from '../../api/bases';
import { useBoxes } from '../../api/boxes';
import { describeError } from '../../api/session';
import { useProjectSnapshots } from '../../api/snapshots';
import { notifyDone } from '../../app/notify';
import { useProject } from '../../app/project';
import { dnsLabelError } from '../snapshots/name-dialog';

type Source = 'snapshot' | 'box' | 'image';

/** A base from a snapshot or a box of the current project, or from an image the engine has. */
export function CreateBaseDialog({ opened, onClose }: { opened: boolean; onClose(): void }) {
  const project = useProject();
  const snapshots = useProjectSnapshots(project);
  const boxes = useBoxes(project);
  const create = useCreateBase();
  const form = useForm({
    initialValues: {
      name: '',
      source: 'snapshot' as Source,
      snapshot: null as string | null,
      box: null as string | null,
      image: '',
    },
    validateInputOnChange: true,
    validate: {
      name: dnsLabelError,
      snapshot: (v, all) => (all.source === 'snapshot' && !v ? 'Pick a snapshot' : null),
      box: (v, all) => (all.source === 'box' && !v ? 'Pick a box' : null),
      image: (v, all) =>
        all.source === 'image' && v.trim() === '' ? 'Name an image the engine has, e.g. alpine:3' : null,
    },
  });
  useEffect(() => {
    if (opened) {
      form.reset();
      create.reset();
    }
  }, [opened]);
  const submit = form.onSubmit((v) => {
    const body: BaseCreate =
      v.source === 'snapshot'
        ? { name: v.name, from_snapshot: v.snapshot! }
        : v.source === 'box'
          ? { name: v.name, from_box: v.box!, project }
          : { name: v.name, image: v.image.trim() };
    create.mutate(body, {
      onSuccess: (b) => {
        notifyDone(`Base ${b.name} made`, 'New boxes can start from it.');
        onClose();
      },
    });
  });
  return (
    <Modal
      opened={opened}
      onClose={() => !create.isPending && onClose()}
      title="Create a base"
      closeButtonProps={{ 'aria-label': 'Close' }}
    >
      <form onSubmit={submit} noValidate aria-label="Create a base">
        <Stack>
          <TextInput
            label="Name"
            description="lower-case letters, digits and hyphens"
            required
            data-autofocus
            autoComplete="off"
            {...form.getInputProps('name')}
            errorProps={{ role: 'alert' }}
          />
          <SegmentedControl
            aria-label="Made from"
            data={[
              { value: 'snapshot', label: 'A snapshot' },
              { value: 'box', label: 'A box' },
              { value: 'image', label: 'An image' },
            ]}
            {...form.getInputProps('source')}
          />
          {form.values.source === 'snapshot' && (
            <Select
              label="Snapshot"
              description={`snapshots in ${project}`}
              searchable
              data={(snapshots.data ?? []).map((s) => ({ value: s.id, label: `${s.name} (${s.box})` }))}
              {...form.getInputProps('snapshot')}
              errorProps={{ role: 'alert' }}
            />
          )}
          {form.values.source === 'box' && (
            <Select
              label="Box"
              description={`boxes in ${project}`}
              searchable
              data={(boxes.data ?? []).map((b) => b.name)}
              {...form.getInputProps('box')}
              errorProps={{ role: 'alert' }}
            />
          )}
          {form.values.source === 'image' && (
            <TextInput
              label="Image"
              placeholder="alpine:3"
              {...form.getInputProps('image')}
              errorProps={{ role: 'alert' }}
            />
          )}
          {create.isError && (
            <Alert color="red" role="alert" title="Could not create the base">
              {describeError(create.error)}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose} disabled={create.isPending}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Create base
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
