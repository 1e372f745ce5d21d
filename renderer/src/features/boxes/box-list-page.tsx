import {
  ActionIcon,
  Alert,
  Button,
  Center,
  Code,
  Group,
  Loader,
  Paper,
  Select,
  Stack,
  Text,
  TextInput,
  Title,
  Tooltip,
} from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconPlus, IconSearch, IconSortAscending, IconSortDescending } from '@tabler/icons-react';
import { useEffect, useMemo, useState } from 'react';
import { useSearchParams } from 'react-router';
import { BOX_STATUSES, type BoxStatus } from '../../../../shared/schemas/box';
import { useBoxes } from '../../api/boxes';
import { describeError } from '../../api/session';
import { useProject } from '../../app/project';
import { BoxTable } from './box-table';
import { BoxFormDialog } from './box-form-dialog';
import { NO_FILTERS, applyFilters, tagsOf, type ListFilters, type SortKey } from './list-filters';
import { useBoxActions } from './use-box-actions';

const SORTS: { value: SortKey; label: string }[] = [
  { value: 'name', label: 'Name' },
  { value: 'status', label: 'Status' },
  { value: 'created_at', label: 'Created' },
  { value: 'updated_at', label: 'Updated' },
];

export function BoxListPage() {
  const project = useProject();
  const boxes = useBoxes(project);
  const actions = useBoxActions(project);
  const [params, setParams] = useSearchParams();
  const [filters, setFilters] = useState<ListFilters>(NO_FILTERS);
  const [search] = useDebouncedValue(filters.search, 120);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const all = useMemo(() => boxes.data ?? [], [boxes.data]);
  const shown = useMemo(() => applyFilters(all, { ...filters, search }), [all, filters, search]);
  const tags = useMemo(() => tagsOf(all), [all]);
  const creating = params.get('create') === '1';
  const setCreating = (on: boolean) => setParams(on ? { create: '1' } : {}, { replace: true });

  // A selection never names a box that is gone.
  useEffect(() => {
    setSelected((prev) => {
      const names = new Set(all.map((b) => b.name));
      const next = new Set([...prev].filter((n) => names.has(n)));
      return next.size === prev.size ? prev : next;
    });
  }, [all]);
  useEffect(() => setSelected(new Set()), [project]);

  const select = (names: string[], on: boolean) =>
    setSelected((prev) => {
      const next = new Set(prev);
      for (const n of names)
        if (on) next.add(n);
        else next.delete(n);
      return next;
    });
  const selectedNames = [...selected];
  const filtered = filters.search !== '' || filters.status !== null || filters.tag !== null;

  return (
    <Stack gap="sm">
      <Group justify="space-between">
        <Title order={2}>Boxes in {project}</Title>
        <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
          Create box
        </Button>
      </Group>
      <Group gap="sm" align="end" role="search" aria-label="Filter boxes">
        <TextInput
          label="Search"
          placeholder="name, id, base or tag"
          leftSection={<IconSearch size={16} />}
          value={filters.search}
          onChange={(e) => setFilters({ ...filters, search: e.currentTarget.value })}
          w={240}
        />
        <Select
          label="Status"
          placeholder="any"
          clearable
          data={[...BOX_STATUSES]}
          value={filters.status}
          onChange={(v) => setFilters({ ...filters, status: v as BoxStatus | null })}
          w={140}
        />
        <Select
          label="Tag"
          placeholder="any"
          clearable
          searchable
          data={tags}
          value={filters.tag}
          onChange={(v) => setFilters({ ...filters, tag: v })}
          w={180}
          nothingFoundMessage="No tags"
        />
        <Select
          label="Sort by"
          data={SORTS}
          value={filters.sort}
          allowDeselect={false}
          onChange={(v) => setFilters({ ...filters, sort: (v as SortKey | null) ?? 'name' })}
          w={130}
        />
        <Tooltip label={filters.descending ? 'Descending' : 'Ascending'}>
          <ActionIcon
            variant="default"
            size="lg"
            mb={1}
            aria-label={filters.descending ? 'Sort ascending' : 'Sort descending'}
            onClick={() => setFilters({ ...filters, descending: !filters.descending })}
          >
            {filters.descending ? <IconSortDescending size={18} /> : <IconSortAscending size={18} />}
          </ActionIcon>
        </Tooltip>
        <Text size="sm" c="dimmed" ml="auto" role="status">
          {boxes.data
            ? filtered
              ? `${shown.length} of ${all.length} boxes`
              : all.length === 1
                ? '1 box'
                : `${all.length} boxes`
            : ''}
        </Text>
      </Group>
      {selected.size > 0 && (
        <Paper withBorder p="xs" role="toolbar" aria-label="Selected boxes">
          <Group gap="sm">
            <Text size="sm" fw={500}>
              {selected.size} selected
            </Text>
            <Button
              size="xs"
              variant="default"
              loading={actions.pending}
              onClick={() => void actions.stop(selectedNames)}
            >
              Stop selected
            </Button>
            <Button
              size="xs"
              variant="default"
              loading={actions.pending}
              onClick={() => void actions.resume(selectedNames)}
            >
              Resume selected
            </Button>
            <Button
              size="xs"
              color="red"
              variant="light"
              loading={actions.pending}
              onClick={() => actions.confirmDelete(selectedNames, () => setSelected(new Set()))}
            >
              Delete selected
            </Button>
            <Button size="xs" variant="subtle" onClick={() => setSelected(new Set())}>
              Clear selection
            </Button>
          </Group>
        </Paper>
      )}
      {boxes.isPending ? (
        <Center p="xl" role="status">
          <Loader size="sm" mr="sm" />
          <Text>Loading the boxes of {project}…</Text>
        </Center>
      ) : boxes.isError ? (
        <Alert color="red" title="Could not load the boxes" role="alert">
          <Text size="sm">{describeError(boxes.error)}</Text>
          <Button mt="sm" size="xs" variant="light" color="red" onClick={() => void boxes.refetch()}>
            Try again
          </Button>
        </Alert>
      ) : all.length === 0 ? (
        <Paper withBorder p="xl">
          <Stack align="center" gap="xs">
            <Title order={3} size="h4">
              No boxes in {project} yet
            </Title>
            <Text size="sm" c="dimmed">
              Create one with the button above, or from a terminal: <Code>box create NAME</Code>
            </Text>
            <Button mt="xs" leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
              Create your first box
            </Button>
          </Stack>
        </Paper>
      ) : shown.length === 0 ? (
        <Paper withBorder p="xl">
          <Stack align="center" gap="xs">
            <Text>No box matches these filters.</Text>
            <Button
              variant="light"
              onClick={() => setFilters({ ...NO_FILTERS, sort: filters.sort, descending: filters.descending })}
            >
              Clear the filters
            </Button>
          </Stack>
        </Paper>
      ) : (
        <BoxTable
          project={project}
          boxes={shown}
          selected={selected}
          onSelect={select}
          onStop={(n) => void actions.stop([n])}
          onResume={(n) => void actions.resume([n])}
          onDelete={(n) => actions.confirmDelete([n])}
        />
      )}
      <BoxFormDialog project={project} opened={creating} onClose={() => setCreating(false)} />
    </Stack>
  );
}
