import { Alert, Center, Code, Loader, Stack, Table, Text, Title } from '@mantine/core';
import { describeError } from '../../api/session';
import { useBases } from '../../api/system';

function formatSize(bytes: number | null): string {
  if (bytes === null) return '—';
  const mib = bytes / (1024 * 1024);
  return mib >= 1024 ? `${(mib / 1024).toFixed(1)} GiB` : `${mib.toFixed(1)} MiB`;
}

/** The base templates boxes start from. */
export function BasesPage() {
  const bases = useBases();
  return (
    <Stack>
      <Title order={2}>Bases</Title>
      {bases.isPending && (
        <Center role="status">
          <Loader size="sm" mr="sm" /> Loading bases…
        </Center>
      )}
      {bases.isError && (
        <Alert color="red" role="alert" title="Could not load the bases">
          {describeError(bases.error)}
        </Alert>
      )}
      {bases.data &&
        (bases.data.items.length === 0 ? (
          <Text>
            No bases yet. Register an image the engine has with <Code>box base create NAME --image IMAGE</Code>.
          </Text>
        ) : (
          <Table aria-label="Bases" striped maw={900}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Image</Table.Th>
                <Table.Th>Size</Table.Th>
                <Table.Th>Created</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {bases.data.items.map((base) => (
                <Table.Tr key={base.name}>
                  <Table.Th scope="row">{base.name}</Table.Th>
                  <Table.Td>
                    <Code>{base.image}</Code>
                  </Table.Td>
                  <Table.Td>{formatSize(base.size_bytes)}</Table.Td>
                  <Table.Td>
                    <time dateTime={base.created_at}>{new Date(base.created_at).toLocaleString()}</time>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        ))}
    </Stack>
  );
}
