import { ActionIcon, Group, Select, Text, TextInput, Tooltip } from '@mantine/core';
import { IconSearch, IconSortAscending, IconSortDescending } from '@tabler/icons-react';
import { BOX_STATUSES, type BoxStatus } from '../../../../shared/schemas/box';
import type { ListFilters, SortKey } from './list-filters';

const SORTS: { value: SortKey; label: string }[] = [
  { value: 'name', label: 'Name' },
  { value: 'status', label: 'Status' },
  { value: 'created_at', label: 'Created' },
  { value: 'updated_at', label: 'Updated' },
];

interface Props {
  filters: ListFilters;
  onChange(filters: ListFilters): void;
  tags: string[];
  /** "3 boxes", "1 of 2 boxes"; empty while loading. */
  count: string;
}

/** Search, status, tag and sort over the cached list, and how many boxes it shows. */
export function BoxFilters({ filters, onChange, tags, count }: Props) {
  const set = (patch: Partial<ListFilters>) => onChange({ ...filters, ...patch });
  return (
    <Group gap="sm" align="end" role="search" aria-label="Filter boxes">
      <TextInput
        label="Search"
        placeholder="name, id, base or tag"
        leftSection={<IconSearch size={16} />}
        value={filters.search}
        onChange={(e) => set({ search: e.currentTarget.value })}
        w={240}
      />
      <Select
        label="Status"
        placeholder="any"
        clearable
        data={[...BOX_STATUSES]}
        value={filters.status}
        onChange={(v) => set({ status: v as BoxStatus | null })}
        w={140}
      />
      <Select
        label="Tag"
        placeholder="any"
        clearable
        searchable
        data={tags}
        value={filters.tag}
        onChange={(v) => set({ tag: v })}
        w={180}
        nothingFoundMessage="No tags"
      />
      <Select
        label="Sort by"
        data={SORTS}
        value={filters.sort}
        allowDeselect={false}
        onChange={(v) => set({ sort: (v as SortKey | null) ?? 'name' })}
        w={130}
      />
      <Tooltip label={filters.descending ? 'Descending' : 'Ascending'}>
        <ActionIcon
          variant="default"
          size="lg"
          mb={1}
          aria-label={filters.descending ? 'Sort ascending' : 'Sort descending'}
          onClick={() => set({ descending: !filters.descending })}
        >
          {filters.descending ? <IconSortDescending size={18} /> : <IconSortAscending size={18} />}
        </ActionIcon>
      </Tooltip>
      <Text size="sm" c="dimmed" ml="auto" role="status">
        {count}
      </Text>
    </Group>
  );
}
