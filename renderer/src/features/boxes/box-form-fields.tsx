import { Group, NumberInput, SegmentedControl, Select } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import { DEFAULT_CONFIG } from '../../../../shared/schemas/box';
import { useRegions, useSystem } from '../../api/system';
import { fieldProps } from '../../kit/field-props';
import { KeyValueEditor } from '../../kit/key-value-editor';
import { options } from '../../kit/options';
import { bindPairs } from '../../kit/pairs';
import { useBases } from '../bases/use-bases';
import { MountsEditor } from '../volumes/mounts-editor';
import { MIB, type BoxValues } from './box-form';
import { NetworkFields } from './network-fields';
import { useBoxes } from './use-boxes';

type Form = UseFormReturnType<BoxValues>;

/** Where a new box starts: a base, or a copy of a running or stopped box of the project. */
export function SourceFields({ form, project, opened }: { form: Form; project: string; opened: boolean }) {
  const bases = useBases(opened);
  const boxes = useBoxes(project);
  const forkable = (boxes.data ?? [])
    .filter((b) => b.status === 'running' || b.status === 'stopped')
    .map((b) => b.name);
  return (
    <>
      <SegmentedControl
        aria-label="Start from"
        data={options({ base: 'A base', fork: 'A copy of a box (fork)' })}
        {...form.getInputProps('source')}
      />
      {form.values.source === 'base' ? (
        <Select
          label="Base"
          placeholder="default"
          clearable
          data={(bases.data?.items ?? []).map((b) => ({ value: b.name, label: `${b.name} (${b.image})` }))}
          {...fieldProps(form, 'base')}
        />
      ) : (
        <Select
          label="Fork source"
          placeholder="a running or stopped box"
          searchable
          data={forkable}
          nothingFoundMessage="No box to fork in this project"
          {...fieldProps(form, 'fork')}
        />
      )}
    </>
  );
}

/** Where a new box from a base goes, where the core drives more than one engine (a fork stays in its source's). */
export function RegionField({ form, opened }: { form: Form; opened: boolean }) {
  const regions = useRegions(opened).data?.items ?? [];
  if (regions.length < 2 || form.values.source !== 'base') return null;
  return (
    <Select
      label="Region"
      placeholder={`${regions[0]!.name} (default)`}
      clearable
      data={regions.map((r) => ({
        value: r.name,
        label: `${r.name}${r.engine.up ? '' : ' (engine away)'}`,
        disabled: !r.engine.up,
      }))}
      {...fieldProps(form, 'region')}
    />
  );
}

/** The engine's capacity, which bounds CPUs and memory (null until known). */
export function useEngineLimits(opened: boolean): { maxCpus: number | null; maxRam: number | null } {
  const system = useSystem(opened);
  const engine = system.data?.engine;
  return {
    maxCpus: engine?.cpus ?? null,
    maxRam: engine?.memory_bytes ? Math.floor(engine.memory_bytes / MIB) : null,
  };
}

/** CPUs and memory, bounded by what the engine has. */
export function LimitsFields({ form, maxCpus, maxRam }: { form: Form; maxCpus: number | null; maxRam: number | null }) {
  return (
    <Group grow align="start">
      <NumberInput
        label="CPUs"
        placeholder={String(DEFAULT_CONFIG.cpus)}
        min={1}
        max={maxCpus ?? undefined}
        description={maxCpus ? `1 to ${maxCpus}` : undefined}
        allowDecimal={false}
        {...fieldProps(form, 'cpus')}
      />
      <NumberInput
        label="Memory (MiB)"
        placeholder={String(DEFAULT_CONFIG.ram_mb)}
        min={64}
        max={maxRam ?? undefined}
        step={256}
        description={maxRam ? `64 to ${maxRam}` : undefined}
        allowDecimal={false}
        {...fieldProps(form, 'ram_mb')}
      />
    </Group>
  );
}

/** Internet and host access, environment and tags; at create, the volumes to mount. */
export function SettingsFields({ form, project, editing }: { form: Form; project: string; editing: boolean }) {
  return (
    <>
      <NetworkFields form={form} />
      <KeyValueEditor kind="environment" label="Environment" {...bindPairs(form, 'environment')} />
      <KeyValueEditor kind="tags" label="Tags" {...bindPairs(form, 'tags')} />
      {!editing && (
        <MountsEditor
          project={project}
          rows={form.values.mounts}
          error={form.errors.mounts as string | undefined}
          onChange={(rows) => form.setFieldValue('mounts', rows)}
        />
      )}
    </>
  );
}
