/** The MetaStore contract, the only storage interface the rest of Metasrv programs against: its value types, input rules and typed errors. */
package lake.meta;
