import { Badge, Code, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { IconWorld } from '@tabler/icons-react';
import type { DetailTabProps } from '../../app/feature-module';
import { PublishForm } from './publish-form';
import { PublishedUrl } from './published-url';

/** Publish a box's web server at its preview URL: port, access, extra domains; update or unpublish. */
export function PublishTab({ box }: DetailTabProps) {
  const published = box.url !== null;
  return (
    <Paper withBorder p="md" maw={1200} component="section" aria-labelledby="publish-heading">
      <Stack gap="md">
        <Group gap="sm">
          <Title order={3} id="publish-heading">
            Publish
          </Title>
          {published ? (
            <Badge color="teal" variant="light" leftSection={<IconWorld size={12} />}>
              Published, {box.url_settings?.auth}
            </Badge>
          ) : (
            <Badge color="gray" variant="light">
              Not published
            </Badge>
          )}
        </Group>
        <Text size="sm" c="dimmed">
          Serve a web server running in this box at a stable URL on this machine, through Boxdesk’s proxy.
        </Text>
        <SimpleGrid cols={{ base: 1, md: 2 }} spacing="xl">
          <PublishForm box={box} />
          {published ? (
            <PublishedUrl box={box} />
          ) : (
            <Text size="sm" c="dimmed">
              Not published. Publishing gives this box a URL on Boxdesk’s proxy,{' '}
              <Code>
                http://{box.name}--{box.project}.localhost:PORT
              </Code>
              , that browsers on this machine resolve by themselves.
            </Text>
          )}
        </SimpleGrid>
      </Stack>
    </Paper>
  );
}
