import { Code, Paper, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { useProject } from '../../app/project';
import { CreateButton } from '../../kit/create-button';
import { QueryStates } from '../../kit/query-states';
import { TitleBar } from '../../kit/title-bar';
import { CreateServiceDialog } from './create-service-dialog';
import { ServiceCard } from './service-card';
import { useServices } from './use-services';

/** A project's services: each with its URL, live color and deployment history; create, deploy, roll back, delete. */
export function ServicesPage() {
  const project = useProject();
  const services = useServices(project);
  const [creating, setCreating] = useState(false);
  return (
    <Stack>
      <TitleBar title="Services" maw={900}>
        <CreateButton label="Create service" onClick={() => setCreating(true)} />
      </TitleBar>
      <Text size="sm" c="dimmed" maw={900}>
        A service runs your command as a box and serves it at a stable URL. A deploy starts the new version as the other
        color (blue or green) beside the live one; the URL switches only once it passes its health check.
      </Text>
      <QueryStates
        query={services}
        what="the services"
        empty={
          <Paper withBorder p="lg" maw={900}>
            <Text>No services in {project} yet.</Text>
            <Text size="sm" c="dimmed" mt={4}>
              Press “Create service”, or from a terminal:{' '}
              <Code>box service create web --port 8080 --command 'exec httpd -f -p 8080'</Code>
            </Text>
          </Paper>
        }
      >
        {(list) => list.map((s) => <ServiceCard key={s.name} service={s} />)}
      </QueryStates>
      <CreateServiceDialog project={project} opened={creating} onClose={() => setCreating(false)} />
    </Stack>
  );
}
