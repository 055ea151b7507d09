/** Grants as data: privileges on catalog objects stored in the fenced store, managed at runtime, followed by every node. */
package lake.grants;
