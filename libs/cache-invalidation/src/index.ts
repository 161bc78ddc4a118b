export { SettlingDrops } from './settling-drops.js';
