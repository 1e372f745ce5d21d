import { IconWorld } from '@tabler/icons-react';
import type { FeatureModule } from '../../app/feature-module';
import { PublishTab } from './publish-tab';

/** Published boxes are patched by the boxes module's rules (box.published and box.unpublished carry the box). */
export const publishing: FeatureModule = {
  name: 'publishing',
  tabs: [{ value: 'publish', label: 'Publish', icon: IconWorld, Component: PublishTab }],
};
