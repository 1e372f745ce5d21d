import { Autocomplete } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { subscribeEvents } from '../api/events';
import { isDnsLabel } from '../kit/validators';
import { addKnownProjects, knownProjects, paths, rememberProject, useProject } from './project';
import { useRegistry } from './registry';

/**
 * Type a project's name or pick one used before or seen in the event stream
 * (the API has no project list); the first box created in a project makes it exist.
 */
export function ProjectSwitcher() {
  const project = useProject();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const [value, setValue] = useState(project);
  const [known, setKnown] = useState(knownProjects);
  const { pages } = useRegistry();
  useEffect(() => {
    setValue(project);
    rememberProject(project);
    setKnown(knownProjects());
  }, [project]);
  useEffect(
    () =>
      subscribeEvents((events) => {
        const seen = events.map((e) => e.project).filter((p): p is string => p !== null);
        if (addKnownProjects(seen)) setKnown(knownProjects());
      }),
    [],
  );

  const go = (next: string) => {
    const name = next.trim();
    if (!isDnsLabel(name)) return;
    rememberProject(name);
    // On a project's sidebar page (Services…), the same page of the other project; elsewhere its boxes.
    const page = pages.find((p) => p.route.startsWith('/projects/') && p.href(project) === pathname);
    void navigate(page ? page.href(name) : paths.boxes(name));
  };
  const invalid = value !== '' && !isDnsLabel(value.trim());

  return (
    <Autocomplete
      aria-label="Project"
      placeholder="project"
      w={180}
      data={known}
      value={value}
      onChange={setValue}
      onOptionSubmit={go}
      onKeyDown={(e) => {
        if (e.key === 'Enter') go(value);
      }}
      onBlur={() => setValue(project)}
      error={invalid ? 'lower-case letters, digits, hyphens' : undefined}
    />
  );
}
