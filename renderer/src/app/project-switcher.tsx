import { Autocomplete } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { DNS_LABEL_PATTERN } from '../../../shared/schemas/common';
import { knownProjects, paths, rememberProject, useProject } from './project';

const DNS_LABEL = new RegExp(DNS_LABEL_PATTERN);

/** Type a project's name or pick one used before; the first box created in a project makes it exist. */
export function ProjectSwitcher() {
  const project = useProject();
  const navigate = useNavigate();
  const [value, setValue] = useState(project);
  useEffect(() => {
    setValue(project);
    rememberProject(project);
  }, [project]);

  const go = (next: string) => {
    const name = next.trim();
    if (!DNS_LABEL.test(name)) return;
    rememberProject(name);
    void navigate(paths.boxes(name));
  };
  const invalid = value !== '' && !DNS_LABEL.test(value.trim());

  return (
    <Autocomplete
      aria-label="Project"
      placeholder="project"
      w={180}
      data={knownProjects()}
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
