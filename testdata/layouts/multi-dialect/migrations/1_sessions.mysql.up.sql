CREATE TABLE sessions (id bigint AUTO_INCREMENT PRIMARY KEY, token varchar(64));
