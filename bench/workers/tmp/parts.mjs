import { newQuickJSWASMModule } from 'quickjs-emscripten';
const wasm = await newQuickJSWASMModule();
function bench(label, fn, n = 3000) { for (let i = 0; i < 300; i++) fn(); const t = performance.now(); for (let i = 0; i < n; i++) fn(); return ((performance.now() - t) / n); }
const rows = [];
const INTR = { BaseObjects: true, Date: true, Eval: true, StringNormalize: true, RegExp: true, JSON: true, Proxy: true, MapSet: true, Promise: true };
const withVm = (fn, intr = INTR) => () => { const rt = wasm.newRuntime(); rt.setMemoryLimit(32<<20); rt.setInterruptHandler(() => false); const vm = rt.newContext({ intrinsics: intr }); fn(vm, rt); vm.dispose(); rt.dispose(); };
rows.push(['rt+ctx', bench('', withVm(() => {}))]);
rows.push(['rt+ctx default intrinsics', bench('', withVm(() => {}, undefined))]);
rows.push(['+ eval small expr', bench('', withVm((vm) => { vm.unwrapResult(vm.evalCode('(function(){ return (\n[1,2].map(x => x * 2).length\n); }).call(undefined)')).dispose(); }))]);
rows.push(['+ 5 lazy defineProp getters', bench('', withVm((vm) => { for (const k of ['a','b','c','d','e']) vm.defineProp(vm.global, k, { configurable: true, enumerable: true, get() { return vm.newNumber(1); } }); }))]);
rows.push(['+ 5 newString+setProp', bench('', withVm((vm) => { for (const k of ['a','b','c','d','e']) { const h = vm.newString('{"x":1}'); vm.setProp(vm.global, k, h); h.dispose(); } }))]);
rows.push(['+ JSON.parse of ctx in guest', bench('', withVm((vm) => { const h = vm.newString('{"flow_input":{"n":1,"iter":{"value":"v","index":3}},"results":{"a":{"items":[1,2,3,4]}},"previous_result":"p"}'); vm.setProp(vm.global, '__ctx', h); h.dispose(); vm.unwrapResult(vm.evalCode('const {flow_input, results, previous_result} = JSON.parse(__ctx); 1')).dispose(); }))]);
for (const [l, v] of rows) console.log(l.padEnd(34), v.toFixed(4));
