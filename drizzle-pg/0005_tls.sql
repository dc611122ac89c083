CREATE TABLE "cluster"."acme_account_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"pem" text NOT NULL,
	"saved_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cluster"."acme_challenges" (
	"token" text PRIMARY KEY NOT NULL,
	"key_authorization" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cluster"."tls_certificates" (
	"name" text PRIMARY KEY NOT NULL,
	"cert" text NOT NULL,
	"key" text NOT NULL,
	"saved_at" bigint NOT NULL
);
