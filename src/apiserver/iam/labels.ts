// The labels and annotations KubeSphere gives meaning to (reference 2.2), one definition for the controllers, the
// authorizer and the aggregated APIs alike.

/** The workspace a namespace, workspace role or binding, or group belongs to. */
export const WORKSPACE_LABEL = 'kubesphere.io/workspace';
/** Who created a namespace or workspace (the namespace controller makes them its admin). */
export const CREATOR_ANNOTATION = 'kubesphere.io/creator';
/** The user an object belongs to (login records, bindings, group bindings). */
export const USER_REF_LABEL = 'iam.kubesphere.io/user-ref';
/** The group an object belongs to (group bindings, role bindings of a group). */
export const GROUP_REF_LABEL = 'iam.kubesphere.io/group-ref';
