import { Button, Code, Paper, Stack, Text, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconFolderUp, IconPlus } from '@tabler/icons-react';
import { useMemo, useState } from 'react';
import { useSearchParams } from 'react-router';
import { useProject } from '../../app/project';
import { CreateButton } from '../../kit/create-button';
import { QueryStates } from '../../kit/query-states';
import { TitleBar } from '../../kit/title-bar';
import { BoxFilters } from './box-filters';
import { BoxFromFolderDialog } from './box-from-folder-dialog';
import { BoxFormDialog } from './box-form-dialog';
import { BoxTable } from './box-table';
import { BulkBar } from './bulk-bar';
import { NO_FILTERS, applyFilters, tagsOf, type ListFilters } from './list-filters';
import { useBoxActions } from './use-box-actions';
import { useBoxes } from './use-boxes';
import { useSelection } from './use-selection';

function countText(shown: number, all: number, filtered: boolean): string {
  if (filtered) return `${shown} of ${all} boxes`;
  return all === 1 ? '1 box' : `${all} boxes`;
}

function Empty({ project, onCreate }: { project: string; onCreate(): void }) {
  return (
    <Paper withBorder p="xl">
      <Stack align="center" gap="xs">
        <Title order={3} size="h4">
          No boxes in {project} yet
        </Title>
        <Text size="sm" c="dimmed">
          Create one with the button above, or from a terminal: <Code>box create NAME</Code>
        </Text>
        <Button mt="xs" leftSection={<IconPlus size={16} />} onClick={onCreate}>
          Create your first box
        </Button>
      </Stack>
    </Paper>
  );
}

function NoMatch({ onClear }: { onClear(): void }) {
  return (
    <Paper withBorder p="xl">
      <Stack align="center" gap="xs">
        <Text>No box matches these filters.</Text>
        <Button variant="light" onClick={onClear}>
          Clear the filters
        </Button>
      </Stack>
    </Paper>
  );
}

/** The project's boxes: filter and sort, act on one or on a selection, create. */
export function BoxListPage() {
  const project = useProject();
  const boxes = useBoxes(project);
  const actions = useBoxActions(project);
  const [params, setParams] = useSearchParams();
  const [filters, setFilters] = useState<ListFilters>(NO_FILTERS);
  const [search] = useDebouncedValue(filters.search, 120);
  const all = useMemo(() => boxes.data ?? [], [boxes.data]);
  const shown = useMemo(() => applyFilters(all, { ...filters, search }), [all, filters, search]);
  const tags = useMemo(() => tagsOf(all), [all]);
  const selection = useSelection(project, all);
  const creating = params.get('create') === '1';
  const setCreating = (on: boolean) => setParams(on ? { create: '1' } : {}, { replace: true });
  const fromFolder = params.get('create') === 'folder';
  const setFromFolder = (on: boolean) => setParams(on ? { create: 'folder' } : {}, { replace: true });
  const filtered = filters.search !== '' || filters.status !== null || filters.tag !== null;

  return (
    <Stack gap="sm">
      <TitleBar title={`Boxes in ${project}`}>
        <CreateButton icon={IconFolderUp} label="Box from folder" onClick={() => setFromFolder(true)} />
        <CreateButton label="Create box" onClick={() => setCreating(true)} />
      </TitleBar>
      <BoxFilters
        filters={filters}
        onChange={setFilters}
        tags={tags}
        count={boxes.data ? countText(shown.length, all.length, filtered) : ''}
      />
      <BulkBar names={[...selection.selected]} actions={actions} onClear={selection.clear} />
      <QueryStates
        query={boxes}
        what={`the boxes of ${project}`}
        empty={<Empty project={project} onCreate={() => setCreating(true)} />}
      >
        {() =>
          shown.length === 0 ? (
            <NoMatch
              onClear={() => setFilters({ ...NO_FILTERS, sort: filters.sort, descending: filters.descending })}
            />
          ) : (
            <BoxTable
              project={project}
              boxes={shown}
              selected={selection.selected}
              onSelect={selection.select}
              onStop={(n) => void actions.stop([n])}
              onResume={(n) => void actions.resume([n])}
              onDelete={(n) => actions.confirmDelete([n])}
            />
          )
        }
      </QueryStates>
      <BoxFormDialog project={project} opened={creating} onClose={() => setCreating(false)} />
      <BoxFromFolderDialog project={project} opened={fromFolder} onClose={() => setFromFolder(false)} />
    </Stack>
  );
}
