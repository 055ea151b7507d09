/** The DynamoDB backend of the MetaStore over the async SDK: a guarded mutation is one TransactWriteItems with a ConditionCheck on the lease. */
package lake.meta.dynamo;
