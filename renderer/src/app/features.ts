import { bases } from '../features/bases';
import { boxes } from '../features/boxes';
import { consoles } from '../features/console';
import { files } from '../features/files';
import { jobs } from '../features/jobs';
import { logs } from '../features/logs';
import { network } from '../features/network';
import { publishing } from '../features/publishing';
import { services } from '../features/services';
import { settings } from '../features/settings';
import { snapshots } from '../features/snapshots';
import { stats } from '../features/stats';
import { volumes } from '../features/volumes';
import type { FeatureModule } from './feature-module';
import { shell } from './shell-module';

/**
 * Every feature of the window, one line each. Their order is the order of
 * the sidebar's pages and of a box's tabs: Boxes, Volumes, Services, Bases,
 * Settings; Overview, Logs, Console, Jobs, Stats, Files, Snapshots, Volumes, Publish, Network.
 */
export const FEATURES: FeatureModule[] = [
  shell,
  boxes,
  logs,
  consoles,
  jobs,
  stats,
  files,
  snapshots,
  volumes,
  publishing,
  network,
  services,
  bases,
  settings,
];
