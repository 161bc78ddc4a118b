{{/*
A PostgreSQL role per service (postgres.serviceRoles): the roles are `<database>_<schema>`, as
serviceRoleName in @flowmesh/persistence names them; the schemas are SERVICE_SCHEMAS of the
contracts (helm/test/database-roles.test.ts fails when these differ).
*/}}
{{- define "flowmesh.serviceSchemas" -}}
{"flow-orchestrator":"orchestrator","agent-runtime":"agent_runtime","llm-gateway":"llm_gateway","memory-service":"memory","resource-registry":"registry","dependency-locker":"dependency_locker"}
{{- end }}

{{/*
The processes with a role of their own, each with its service: the services (owners of their
schemas), and the workers (`<database>_<schema>_worker`, the rows of their service's schema only),
as MESH_PROCESSES lists them.
*/}}
{{- define "flowmesh.databaseRoleProcesses" -}}
{{- $processes := dict }}
{{- range $service, $schema := include "flowmesh.serviceSchemas" . | fromJson }}
{{- $_ := set $processes $service $service }}
{{- end }}
{{- $_ := set $processes "flow-orchestrator-worker" "flow-orchestrator" }}
{{- $processes | toJson }}
{{- end }}

{{/*
"true" when on. Values kept from a release before this option (`helm upgrade --reuse-values`) have
no postgres.serviceRoles: off, as that release was.
*/}}
{{- define "flowmesh.databaseRolesEnabled" -}}
{{- if (.Values.postgres.serviceRoles | default dict).enabled }}true{{- end }}
{{- end }}

{{/* The Secret of the roles' passwords, a key per process name (services and workers). */}}
{{- define "flowmesh.databaseRolesSecretName" -}}
{{- (.Values.postgres.serviceRoles | default dict).existingSecret | default (printf "%s-database-roles" (include "flowmesh.fullname" .)) }}
{{- end }}

{{/* The hook Secret that hands the administrator's DATABASE_URL to the provisioning Job only. */}}
{{- define "flowmesh.databaseAdminSecretName" -}}
{{- if .Values.secret.existingSecret }}
{{- .Values.secret.existingSecret }}
{{- else }}
{{- printf "%s-database-admin" (include "flowmesh.fullname" .) }}
{{- end }}
{{- end }}

{{/* The database's URL without credentials: postgres.url's, or built from the postgres fields. */}}
{{- define "flowmesh.databaseEndpoint" -}}
{{- $pg := .Values.postgres }}
{{- if $pg.url }}
{{- regexReplaceAll "^([a-z]+://)[^@/?#]*@" $pg.url "${1}" }}
{{- else }}
{{- $url := printf "postgres://%s:%v/%s" $pg.host $pg.port $pg.database }}
{{- if $pg.sslmode }}
{{- $url = printf "%s?sslmode=%s" $url $pg.sslmode }}
{{- end }}
{{- $url }}
{{- end }}
{{- end }}

{{/* The database name in that URL ("postgres" when it names none, as libpq does). */}}
{{- define "flowmesh.databaseName" -}}
{{- (urlParse (include "flowmesh.databaseEndpoint" .)).path | trimPrefix "/" | default "postgres" }}
{{- end }}

{{/* The role of a process: (dict "root" $ "service" "flow-orchestrator" "role" "worker"). */}}
{{- define "flowmesh.databaseRoleOf" -}}
{{- $schema := index (include "flowmesh.serviceSchemas" .root | fromJson) .service }}
{{- if eq (.role | default "service") "worker" }}{{- $schema = printf "%s_worker" $schema }}{{- end }}
{{- regexReplaceAll "[^A-Za-z0-9_]" (printf "%s_%s" (include "flowmesh.databaseName" .root) $schema) "_" | lower | trunc 63 }}
{{- end }}

{{/*
A pod's DATABASE_URL as its process's role: user and password first, so Kubernetes expands
$(DATABASE_USER) and $(DATABASE_PASSWORD) in the URL.
(dict "root" $ "service" "flow-orchestrator" "process" "flow-orchestrator-worker" "role" "worker").
*/}}
{{- define "flowmesh.databaseRoleEnv" -}}
{{- $endpoint := include "flowmesh.databaseEndpoint" .root }}
- name: DATABASE_USER
  value: {{ include "flowmesh.databaseRoleOf" . | quote }}
- name: DATABASE_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "flowmesh.databaseRolesSecretName" .root }}
      key: {{ .process }}
- name: DATABASE_URL
  value: {{ regexReplaceAll "^([a-z]+)://" $endpoint "${1}://$(DATABASE_USER):$(DATABASE_PASSWORD)@" | quote }}
{{- end }}
