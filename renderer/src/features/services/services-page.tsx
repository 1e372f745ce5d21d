import { Alert, Button, Center, Code, Group, Loader, Paper, Stack, Text, Title } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { useServices } from '../../api/services';
import { describeError } from '../../api/session';
import { useProject } from '../../app/project';
import { CreateServiceDialog } from './create-service-dialog';
import { ServiceCard } from './service-card';

/** A project's services: each with its URL, live color and deployment history; create, deploy, roll back, delete. */
export function ServicesPage() {
  const project = useProject();
  const services = useServices(project);
  const [creating, setCreating] = useState(false);
  return (
    <Stack>
      <Group justify="space-between" maw={900}>
        <Title order={2}>Services</Title>
        <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
          Create service
        </Button>
      </Group>
      <Text size="sm" c="dimmed" maw={900}>
        A service runs your command as a box and serves it at a stable URL. A deploy starts the new version as the other
        color (blue or green) beside the live one; the URL switches only once it passes its health check.
      </Text>
      {services.isPending && (
        <Center role="status">
          <Loader size="sm" mr="sm" /> Loading services…
        </Center>
      )}
      {services.isError && (
        <Alert color="red" role="alert" title="Could not load the services" maw={900}>
          {describeError(services.error)} Check that the core is running (the badge at the top right), then reload.
        </Alert>
      )}
      {services.data &&
        (services.data.length === 0 ? (
          <Paper withBorder p="lg" maw={900}>
            <Text>No services in {project} yet.</Text>
            <Text size="sm" c="dimmed" mt={4}>
              Press “Create service”, or from a terminal:{' '}
              <Code>box service create web --port 8080 --command 'exec httpd -f -p 8080'</Code>
            </Text>
          </Paper>
        ) : (
          services.data.map((s) => <ServiceCard key={s.name} service={s} />)
        ))}
      <CreateServiceDialog project={project} opened={creating} onClose={() => setCreating(false)} />
    </Stack>
  );
}
