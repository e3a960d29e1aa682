/** Helm and kubectl for the deployment tests (tools/stack/src/k8s-tools.ts), and the repository root. */
export { ROOT, TOOLS_DIR, ensureK8sTools, type K8sTools } from '../../tools/stack/src/k8s-tools';
