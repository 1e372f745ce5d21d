import { Select, SegmentedControl, TextInput } from '@mantine/core';
import { useForm, type UseFormReturnType } from '@mantine/form';
import type { BaseCreate } from '../../../../shared/schemas/system';
import { useProject } from '../../app/project';
import { fieldProps } from '../../kit/field-props';
import { FormDialog, useFormDialog } from '../../kit/form-dialog';
import { NameInput } from '../../kit/name-input';
import { options } from '../../kit/options';
import { dnsLabelError } from '../../kit/validators';
import { useBoxes } from '../boxes/use-boxes';
import { useProjectSnapshots } from '../snapshots/use-snapshots';
import { useCreateBase } from './use-bases';
import type { DialogProps } from '../../kit/dialog-props';

type Source = 'snapshot' | 'box' | 'image';

interface BaseValues {
  name: string;
  source: Source;
  snapshot: string | null;
  box: string | null;
  image: string;
}

const baseFieldOf = (path: string): keyof BaseValues | null =>
  path === 'name' || path === 'image'
    ? path
    : path === 'from_snapshot'
      ? 'snapshot'
      : path === 'from_box'
        ? 'box'
        : null;

function baseBody(v: BaseValues, project: string): BaseCreate {
  if (v.source === 'snapshot') return { name: v.name, from_snapshot: v.snapshot! };
  if (v.source === 'box') return { name: v.name, from_box: v.box!, project };
  return { name: v.name, image: v.image.trim() };
}

/** A snapshot or a box of the current project, or an image the engine has. */
function SourceFields({ form, project }: { form: UseFormReturnType<BaseValues>; project: string }) {
  const snapshots = useProjectSnapshots(project);
  const boxes = useBoxes(project);
  return (
    <>
      <SegmentedControl
        aria-label="Made from"
        data={options({ snapshot: 'A snapshot', box: 'A box', image: 'An image' })}
        {...form.getInputProps('source')}
      />
      {form.values.source === 'snapshot' && (
        <Select
          label="Snapshot"
          description={`snapshots in ${project}`}
          searchable
          data={(snapshots.data ?? []).map((s) => ({ value: s.id, label: `${s.name} (${s.box})` }))}
          {...fieldProps(form, 'snapshot')}
        />
      )}
      {form.values.source === 'box' && (
        <Select
          label="Box"
          description={`boxes in ${project}`}
          searchable
          data={(boxes.data ?? []).map((b) => b.name)}
          {...fieldProps(form, 'box')}
        />
      )}
      {form.values.source === 'image' && (
        <TextInput label="Image" placeholder="alpine:3" {...fieldProps(form, 'image')} />
      )}
    </>
  );
}

/** A base from a snapshot or a box of the current project, or from an image the engine has. */
export function CreateBaseDialog({ opened, onClose }: DialogProps) {
  const project = useProject();
  const create = useCreateBase();
  const form = useForm<BaseValues>({
    initialValues: { name: '', source: 'snapshot', snapshot: null, box: null, image: '' },
    validateInputOnChange: true,
    validate: {
      name: dnsLabelError,
      snapshot: (v, all) => (all.source === 'snapshot' && !v ? 'Pick a snapshot' : null),
      box: (v, all) => (all.source === 'box' && !v ? 'Pick a box' : null),
      image: (v, all) =>
        all.source === 'image' && v.trim() === '' ? 'Name an image the engine has, e.g. alpine:3' : null,
    },
  });
  const dialog = useFormDialog({
    opened,
    onClose,
    form,
    mutation: create,
    fieldOf: baseFieldOf,
    taken: { field: 'name' },
  });
  const submit = form.onSubmit((v) =>
    create.mutate(baseBody(v, project), {
      onSuccess: (b) => dialog.done(`Base ${b.name} made`, 'New boxes can start from it.'),
    }),
  );
  return (
    <FormDialog
      {...dialog}
      title="Create a base"
      submitLabel="Create base"
      onSubmit={submit}
      problemTitle="Could not create the base"
    >
      <NameInput {...form.getInputProps('name')} />
      <SourceFields form={form} project={project} />
    </FormDialog>
  );
}
