import type { Command } from 'commander';
import { parseConfigNumber } from './arguments.js';
import { out, UsageError, withDatabase } from './common.js';

/** `store-ops productlists …`: list types and the handheld modules that create them (docs/product-lists.md). */
export function addProductListCommands(program: Command): void {
  const lists = program
    .command('productlists')
    .description('configure product list types and the handheld modules that create them');
  lists
    .command('show')
    .description('list the configured types and modules')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { listConfiguration } = await import('../modules/product-lists/configuration.js');
      const configuration = await withDatabase((handle) => listConfiguration(handle.db));
      if (options.json) {
        out(JSON.stringify(configuration, null, 2));
        return;
      }
      for (const t of configuration.types) out(`type\t${t.type}\t${t.description}`);
      for (const m of configuration.modules) out(`module\t${m.module_id}\ttype ${m.type}`);
    });
  lists
    .command('type')
    .description('name a list type (type_description on read), or rename it')
    .argument('<type>', 'list type number', parseConfigNumber)
    .argument('<description>', 'its name')
    .action(async (type: number, description: string) => {
      if (description.trim() === '' || description.length > 255)
        throw new UsageError('<description> must be 1 to 255 characters');
      const { setListType } = await import('../modules/product-lists/configuration.js');
      await withDatabase((handle) => setListType(handle.db, type, description));
      out(`type ${type}: ${description}`);
    });
  lists
    .command('module')
    .description('the list type a handheld module creates (module_id on POST …/productlists)')
    .argument('<module_id>', 'module number', parseConfigNumber)
    .argument('<type>', 'a configured list type', parseConfigNumber)
    .action(async (moduleId: number, type: number) => {
      const { setModuleType } = await import('../modules/product-lists/configuration.js');
      await withDatabase((handle) => setModuleType(handle.db, moduleId, type));
      out(`module ${moduleId}: type ${type}`);
    });
  lists
    .command('remove-module')
    .description('forget a module: creating a list for it is then a 422')
    .argument('<module_id>', 'module number', parseConfigNumber)
    .action(async (moduleId: number) => {
      const { removeModule } = await import('../modules/product-lists/configuration.js');
      const removed = await withDatabase((handle) => removeModule(handle.db, moduleId));
      if (!removed) throw new Error(`no module ${moduleId} is configured`);
      out(`removed module ${moduleId}`);
    });
}
