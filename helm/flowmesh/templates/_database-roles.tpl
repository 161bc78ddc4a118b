{{/*
A PostgreSQL role per service (postgres.serviceRoles): the roles are `<database>_<schema>`, as
serviceRoleName in @flowmesh/persistence names them; the schemas are SERVICE_SCHEMAS of the
contracts (helm/test/database-roles.test.ts fails when these differ).
*/}}
{{- define "flowmesh.serviceSchemas" -}}
{"flow-orchestrator":"orchestrator","agent-runtime":"agent_runtime","llm-gateway":"llm_gateway","memory-service":"memory","resource-registry":"registry","dependency-locker":"dependency_locker"}
{{- end }}

{{/*
"true" when on. Values kept from a release before this option (`helm upgrade --reuse-values`) have
no postgres.serviceRoles: off, as that release was.
*/}}
{{- define "flowmesh.databaseRolesEnabled" -}}
{{- if (.Values.postgres.serviceRoles | default dict).enabled }}true{{- end }}
{{- end }}

{{/* The Secret of the roles' passwords, a key per service name. */}}
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

{{/* The role of a service: (dict "root" $ "service" "flow-orchestrator"). */}}
{{- define "flowmesh.databaseRoleOf" -}}
{{- $schema := index (include "flowmesh.serviceSchemas" .root | fromJson) .service }}
{{- regexReplaceAll "[^A-Za-z0-9_]" (printf "%s_%s" (include "flowmesh.databaseName" .root) $schema) "_" | lower | trunc 63 }}
{{- end }}

{{/*
A pod's DATABASE_URL as its service's role: user and password first, so Kubernetes expands
$(DATABASE_USER) and $(DATABASE_PASSWORD) in the URL. (dict "root" $ "service" "llm-gateway").
*/}}
{{- define "flowmesh.databaseRoleEnv" -}}
{{- $endpoint := include "flowmesh.databaseEndpoint" .root }}
- name: DATABASE_USER
  value: {{ include "flowmesh.databaseRoleOf" . | quote }}
- name: DATABASE_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "flowmesh.databaseRolesSecretName" .root }}
      key: {{ .service }}
- name: DATABASE_URL
  value: {{ regexReplaceAll "^([a-z]+)://" $endpoint "${1}://$(DATABASE_USER):$(DATABASE_PASSWORD)@" | quote }}
{{- end }}
